"""The hosted-tool plugins installed as wheels (the tox ``discovery`` env) next to third-party
samples: ``affordance plugins`` lists them all, and ``affordance-deep-search`` — a
``web_search`` codec for OpenAI at priority 10 — replaces affordance-web-search's on the wire
with no change to any provider plugin, until a pin gives the key back.

Outside that env the samples are not installed and this module is skipped (it says so).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hosted_tools import CITED_SPANS, load
from hosted_tools.runs import PROVIDER_WIRES
from loopback import RESPONSES_PATH, JsonReply, LoopbackServer, openai_server

import affordance.plugins
from affordance import MarkdownSection, PromptTemplate
from affordance_openai import OpenAIAdapter

pytest.importorskip(
    "affordance_deep_search",
    reason="the sample plugin wheels are installed only in the tox 'discovery' env",
)

from affordance_web_search import WebSearchResult, WebSearchSection


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


@pytest.fixture
def configure() -> Iterator[Any]:
    """``affordance.plugins.configure`` for one test; the default host is reset afterwards."""
    yield affordance.plugins.configure
    affordance.plugins.configure()


def plugins_json() -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "affordance", "plugins", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_affordance_plugins_lists_the_hosted_tool_plugins_and_the_samples() -> None:
    plugins = {p["name"]: p for p in plugins_json()["plugins"]}

    for name in ("web-search", "code-interpreter", "deep-search", "acme-search"):
        assert plugins[name]["status"] == "loaded", plugins[name]["reason"]
        assert plugins[name]["source"] == "entry_point"
    keys = {c["key"]: c for c in plugins["web-search"]["contributions"]}
    assert {"web_search", "openai.web_search", "openai-chat.web_search", "anthropic.web_search",
            "google.web_search"} <= set(keys)  # fmt: skip
    assert keys["openai.web_search"]["selected"] is False  # shadowed by deep-search
    assert keys["google.web_search"]["selected"] is True
    (deep,) = plugins["deep-search"]["contributions"]
    assert (deep["key"], deep["priority"], deep["selected"]) == ("openai.web_search", 10, True)
    interpreter = {c["key"] for c in plugins["code-interpreter"]["contributions"]}
    assert interpreter == {
        "code_interpreter",
        "openai.code_interpreter",
        "anthropic.code_interpreter",
        "google.code_interpreter",
    }
    acme = {c["key"] for c in plugins["acme-search"]["contributions"]}
    assert acme == {"acme_search", "openai.acme_search"}


def test_the_text_listing_marks_the_shadowed_codec() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "affordance", "plugins"], capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("affordance_deep_search:DeepWebSearchCodec" in line and "[priority 10]" in line
               for line in lines)  # fmt: skip
    assert any("OpenAIWebSearchCodec" in line and "[shadowed]" in line for line in lines)


def prompt() -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="Wie ist das Wetter in Zürich?")
    return PromptTemplate(ns="samples", key="weather", sections=[task, WebSearchSection()])


def adapter(server: LoopbackServer) -> OpenAIAdapter:
    made = PROVIDER_WIRES["openai"].adapter(server, {})
    assert isinstance(made, OpenAIAdapter)
    return made


def test_the_higher_priority_codec_declares_the_tool_and_reads_the_answer(
    server: LoopbackServer, configure: Any
) -> None:
    configure()
    server.script(RESPONSES_PATH, JsonReply(load("openai_responses_web_search")))

    with adapter(server) as openai_adapter:
        answer = openai_adapter.evaluate(prompt())

    assert server.requests[0].body["tools"] == [
        {"search_context_size": "high", "type": "web_search"}
    ]
    # the override extends affordance-web-search's codec, so it asks for the sources as it does
    assert server.requests[0].body["include"] == ["web_search_call.action.sources"]
    result = answer.hosted_outputs["web_search"]
    assert isinstance(result, WebSearchResult)
    assert tuple(result.quote(c) for c in result.citations) == CITED_SPANS


def test_a_pin_gives_the_key_back_to_affordance_web_search(
    server: LoopbackServer, configure: Any
) -> None:
    configure(pins={"openai.web_search": "affordance-web-search"})
    server.script(RESPONSES_PATH, JsonReply(load("openai_responses_web_search")))

    with adapter(server) as openai_adapter:
        openai_adapter.evaluate(prompt())

    assert server.requests[0].body["tools"] == [{"type": "web_search"}]
