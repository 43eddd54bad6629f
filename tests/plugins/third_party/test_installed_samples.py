"""Third parties are first-class: sample distributions, built as wheels and installed next to
core and the OpenAI plugin (the tox ``discovery`` env), change what reaches the wire.

- ``affordance-openai-compat`` overrides ``serializer:openai.tool`` by priority; a pin restores
  the OpenAI plugin's own serializer.
- ``affordance-acme-search`` adds a hosted tool kind with its OpenAI codec: the declaration
  and the ``include`` entry its codec asks for (``request_extras``) reach the request, the
  parsed output reaches ``PromptResponse.hosted_outputs``.
- ``affordance-rival-search`` offers a second codec for the same key at the same priority: a
  conflict error naming both distributions, settled by a pin.

Outside that env the samples are not installed and this module is skipped (it says so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest
from loopback import (
    RESPONSES_PATH,
    LoopbackServer,
    message_item,
    openai_server,
    output_text_part,
    response,
    response_text,
)

import affordance.plugins
from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.cli.report import report
from affordance.plugins import CodecConflictError, PluginHost
from affordance_openai import OpenAIAdapter

pytest.importorskip(
    "affordance_openai_compat",
    reason="the sample plugin wheels are installed only in the tox 'discovery' env",
)
pytest.importorskip("affordance_rival_search", reason="installed only in the tox 'discovery' env")

from affordance_acme_search import AcmeSearchConfig, AcmeSearchResult, acme_search_tool


@dataclass(frozen=True)
class LookupParams:
    entity_id: str
    verbose: bool = False


def lookup(params: LookupParams) -> ToolResult[str]:
    return ToolResult(message=f"{params.entity_id}: found", value=None)


TOOLS = [Tool[LookupParams, str](name="lookup", description="Look up an entity.", handler=lookup)]


def prompt(*hosted: Any) -> PromptTemplate[Any]:
    section = MarkdownSection(
        title="Task", template="Look it up.", tools=TOOLS, hosted_tools=list(hosted)
    )
    return PromptTemplate(ns="samples", key="lookup", sections=[section])


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


@pytest.fixture
def configure() -> Iterator[Any]:
    """``affordance.plugins.configure`` for one test; the default host is reset afterwards."""
    yield affordance.plugins.configure
    affordance.plugins.configure()


def adapter(server: LoopbackServer) -> OpenAIAdapter:
    client = openai.OpenAI(
        base_url=server.base_url,
        api_key="test",
        max_retries=0,
        http_client=openai.DefaultHttpxClient(verify=False),
    )
    return OpenAIAdapter("gpt-test", client=client, close_clients=True)


def test_an_installed_serializer_override_wins_by_priority_and_changes_the_wire(
    server: LoopbackServer, configure: Any
) -> None:
    configure(pins={"openai.acme_search": "affordance-acme-search"})
    server.script(RESPONSES_PATH, response_text("Found."))

    with adapter(server) as openai_adapter:
        openai_adapter.evaluate(prompt())

    (tool,) = server.requests[0].body["tools"]
    assert tool == {
        "type": "function",
        "name": "lookup",
        "description": "Look up an entity.",
        "parameters": dict(TOOLS[0].parameters_schema()),
    }
    resolution = {
        r["key"]: (r["winner"], r["reason"])
        for r in report(PluginHost(pins={"openai.acme_search": "affordance-acme-search"}))[
            "resolutions"
        ]
    }
    assert resolution["openai.tool"] == ("affordance-openai-compat", "priority")


def test_a_pin_gives_the_key_back_to_the_openai_plugin(
    server: LoopbackServer, configure: Any
) -> None:
    configure(pins={"serializer:openai.tool": "affordance-openai"})
    server.script(RESPONSES_PATH, response_text("Found."))

    with adapter(server) as openai_adapter:
        openai_adapter.evaluate(prompt())

    (tool,) = server.requests[0].body["tools"]
    assert tool["strict"] is True
    assert tool["parameters"]["required"] == ["entity_id", "verbose"]


def test_a_third_party_hosted_kind_and_its_include_reach_the_request_and_the_response(
    server: LoopbackServer, configure: Any
) -> None:
    configure(pins={"openai.acme_search": "affordance-acme-search"})
    server.script(
        RESPONSES_PATH,
        response(
            [
                {"type": "acme_search_call", "id": "as_1", "urls": ["https://acme.example/a"]},
                message_item(output_text_part("Acme says hi.")),
            ]
        ),
    )
    search = acme_search_tool(AcmeSearchConfig(max_results=3))

    with adapter(server) as openai_adapter:
        answer = openai_adapter.evaluate(prompt(search))

    body = server.requests[0].body
    assert {"type": "acme_search", "max_results": 3, "safe_search": True} in body["tools"]
    assert body["include"] == ["acme_search_call.urls"]
    assert answer.hosted_outputs["acme_search"] == AcmeSearchResult(
        text="Acme says hi.", urls=("https://acme.example/a",)
    )


def test_two_codecs_at_one_priority_are_a_conflict_naming_both_until_a_pin(
    server: LoopbackServer, configure: Any
) -> None:
    configure()
    search = acme_search_tool()

    with adapter(server) as openai_adapter, pytest.raises(CodecConflictError) as info:
        openai_adapter.evaluate(prompt(search))

    message = str(info.value)
    assert "affordance-acme-search 1.0.0" in message
    assert "affordance-rival-search 2.0.0" in message
    assert 'AFFORDANCE_PIN="openai.acme_search=' in message
    assert server.requests == ()

    configure(pins={"openai.acme_search": "affordance-rival-search"})
    server.script(RESPONSES_PATH, response_text("Done."))
    with adapter(server) as openai_adapter:
        openai_adapter.evaluate(prompt(search))
    body = server.requests[0].body
    assert {"type": "acme_search", "max_results": 50, "safe_search": True} in body["tools"]
    assert body["include"] == ["acme_search_call.urls"]  # the rival extends acme's codec


def test_the_cli_render_shows_the_resolved_serializers_declarations(tmp_path: Path) -> None:
    (tmp_path / "sample_prompt.py").write_text(
        "from dataclasses import dataclass\n"
        "from affordance import MarkdownSection, PromptTemplate, Tool\n"
        "@dataclass(frozen=True)\n"
        "class Params:\n"
        "    entity_id: str\n"
        "    verbose: bool = False\n"
        "TOOL = Tool[Params, str](name='lookup', description='Look up an entity.')\n"
        "PROMPT = PromptTemplate(ns='s', key='k', sections=[\n"
        "    MarkdownSection(title='Task', template='Look it up.', tools=[TOOL])])\n"
    )
    command = [sys.executable, "-m", "affordance", "render", "sample_prompt:PROMPT"]
    done = subprocess.run(
        [*command, "--provider", "openai", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "AFFORDANCE_PIN": "openai.acme_search=affordance-acme-search"},
        check=False,
    )

    assert done.returncode == 0, done.stderr
    (tool,) = json.loads(done.stdout)["request"]["tools"]
    assert "strict" not in tool
    assert tool["parameters"]["required"] == ["entity_id"]
