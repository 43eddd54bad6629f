"""Request extras on the Messages and Gemini adapters: what a codec asks for reaches the body
the real SDK sends to the loopback server, and a codec asking for a field the adapter builds
fails before any request. (OpenAI Responses: ``test_request_extras.py``; none of the shipped
Anthropic or Gemini codecs asks for extras today, so these codecs are the test's own.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from loopback import (
    MESSAGES_PATH,
    JsonReply,
    LoopbackServer,
    anthropic_server,
    generate_path,
    google_server,
    google_text,
    message_text,
)

from affordance import HostedTool, MarkdownSection, PromptTemplate
from affordance.errors import RequestExtrasConflictError


@dataclass(frozen=True)
class BoxConfig:
    extras: Mapping[str, Any]


class BoxCodec:
    """A provider-run tool whose requests need a top-level field (Anthropic's ``container``,
    Gemini's ``cachedContent``): whatever its config says."""

    kind = "box"

    def __init__(self, declaration: dict[str, Any]) -> None:
        self.declaration = declaration

    def serialize(self, tool: HostedTool[BoxConfig]) -> dict[str, Any]:
        return dict(self.declaration)

    def request_extras(self, tool: HostedTool[BoxConfig]) -> Mapping[str, Any]:
        return tool.config.extras

    def parse_output(self, items: Any, tool: HostedTool[BoxConfig]) -> None:
        return None


@dataclass(frozen=True)
class Provider:
    """How to build one provider's adapter from the environment, and its loopback server."""

    module: str
    adapter: str
    model: str
    environment: Callable[[LoopbackServer], dict[str, str]]
    server: Callable[[], Any]
    route: Callable[[str], str]
    answer: Callable[[], Any]
    declaration: dict[str, Any]
    extra: tuple[str, Any]
    built: str


PROVIDERS = [
    Provider(
        "affordance_anthropic",
        "AnthropicAdapter",
        "claude-test",
        lambda s: {"ANTHROPIC_BASE_URL": s.base_url, "ANTHROPIC_API_KEY": "test"},
        anthropic_server,
        lambda model: MESSAGES_PATH,
        lambda: message_text("Done."),
        {"type": "box_20250101", "name": "box"},
        ("container", "cntr_1"),
        "max_tokens",
    ),
    Provider(
        "affordance_google",
        "GoogleAdapter",
        "gemini-test",
        lambda s: {"GOOGLE_GEMINI_BASE_URL": s.base_url, "GOOGLE_API_KEY": "test"},
        google_server,
        generate_path,
        lambda: JsonReply(google_text("Done.")),
        {"box": {}},
        ("cachedContent", "cachedContents/c1"),
        "contents",
    ),
]


@pytest.fixture(params=PROVIDERS, ids=[p.module for p in PROVIDERS])
def provider(request: pytest.FixtureRequest) -> Provider:
    param: Provider = request.param
    pytest.importorskip(param.module, reason=f"{param.module} is not installed")
    return param


@pytest.fixture
def server(provider: Provider, monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackServer]:
    with provider.server() as loopback:
        for name, value in provider.environment(loopback).items():
            monkeypatch.setenv(name, value)
        yield loopback


def run(provider: Provider, extras: Mapping[str, Any]) -> str | None:
    module = __import__(provider.module)
    tool = HostedTool("box", "box", "Run it in the box.", BoxConfig(extras))
    section = MarkdownSection(title="Task", template="Do it.", hosted_tools=[tool])
    prompt = PromptTemplate(ns="extras", key="box", sections=[section])
    codec = BoxCodec(provider.declaration)
    with getattr(module, provider.adapter)(provider.model, codecs={"box": codec}) as adapter:
        text: str | None = adapter.evaluate(prompt).text
        return text


def test_a_codecs_extra_field_reaches_the_body_the_sdk_sends(
    provider: Provider, server: LoopbackServer
) -> None:
    server.script(provider.route(provider.model), provider.answer())
    field, value = provider.extra

    assert run(provider, {field: value}) == "Done."

    [sent] = server.requests
    assert sent.body[field] == value
    assert provider.declaration in sent.body["tools"]


def test_a_codec_asking_for_a_field_the_adapter_builds_fails_before_any_request(
    provider: Provider, server: LoopbackServer
) -> None:
    with pytest.raises(RequestExtrasConflictError, match=f"request field '{provider.built}'"):
        run(provider, {provider.built: "mine"})
    assert not server.requests
