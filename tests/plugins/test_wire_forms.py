"""Each provider encodes a message once and resends its kept wire form: a model that has sent a
growing conversation request after request builds exactly the body a fresh model builds for
the same request, and reads each tool result through its serializer once.

The conversation holds what shapes a message's form: attachments on a user message and on a
tool result, a turn of two calls answered by two results (one failed), an empty user text, a
turn another provider recorded (no items of this provider's) and one this provider recorded
(its own items, echoed as they are). Google's form of a recorded-elsewhere turn depends on the
function names the request declares, so a request that declares other names rebuilds it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import Image, Tool
from affordance.adapters import (
    AssistantMessage,
    Message,
    ModelRequest,
    ProviderModel,
    ToolCall,
    ToolDeclaration,
    ToolResultMessage,
    UserMessage,
)

UNUSED_URL = "http://127.0.0.1:9"  # nothing is sent: prepare() builds bodies only
PNG = Image(data=b"\x89PNG\r\n\x1a\n" + bytes(range(24)))


def _openai(api: str) -> Callable[[], ProviderModel]:
    def build() -> ProviderModel:
        openai = pytest.importorskip("openai")
        from affordance_openai import OpenAIAdapter

        client = openai.OpenAI(api_key="test", base_url=UNUSED_URL)
        return OpenAIAdapter("gpt-test", client=client, api=api).connection  # type: ignore[arg-type]

    return build


def _anthropic() -> ProviderModel:
    anthropic = pytest.importorskip("anthropic")
    from affordance_anthropic import AnthropicAdapter

    client = anthropic.Anthropic(api_key="test", base_url=UNUSED_URL)
    return AnthropicAdapter("claude-test", client=client).connection


def _google() -> ProviderModel:
    pytest.importorskip("google.genai")
    from google import genai

    from affordance_google import GoogleAdapter

    client = genai.Client(api_key="test", http_options={"base_url": UNUSED_URL})
    return GoogleAdapter("gemini-test", client=client).connection


NICE = ToolCall("call_d", "lookup", {"q": "nice"})
OWN_TURNS: dict[str, tuple[dict[str, Any], ...]] = {
    "openai": (
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
        {
            "type": "function_call",
            "call_id": "call_d",
            "name": "lookup",
            "arguments": '{"q":"nice"}',
        },
    ),
    "anthropic": (
        {"type": "thinking", "thinking": "Nice next.", "signature": "sig"},
        {"type": "tool_use", "id": "call_d", "name": "lookup", "input": {"q": "nice"}},
    ),
    "google": (
        {"functionCall": {"name": "lookup", "args": {"q": "nice"}}, "thoughtSignature": "c2ln"},
    ),
}

MODELS: dict[str, tuple[Callable[[], ProviderModel], str]] = {
    "openai-responses": (_openai("responses"), "openai"),
    "openai-chat": (_openai("chat"), "openai"),
    "anthropic": (_anthropic, "anthropic"),
    "google": (_google, "google"),
}


def conversation(provider: str) -> list[Message]:
    paris, rome = (
        ToolCall("call_a", "lookup", {"q": "paris"}),
        ToolCall("call_b", "lookup", '{"q": "rome"}'),
    )
    own: list[Message] = [
        AssistantMessage(None, (NICE,), OWN_TURNS[provider], provider),
        ToolResultMessage("call_d", "lookup", "Nice: windy"),
    ]
    return [
        UserMessage("Compare Paris and Rome.", attachments=(PNG,)),
        AssistantMessage("Looking both up.", (paris, rome)),
        ToolResultMessage("call_a", "lookup", "Paris: sunny", attachments=(PNG,)),
        ToolResultMessage("call_b", "lookup", "no such city", is_error=True),
        UserMessage(""),
        UserMessage("And Oslo, then Nice?"),
        AssistantMessage(None, (ToolCall("call_c", "lookup", {"q": "oslo"}),)),
        ToolResultMessage("call_c", "lookup", "Oslo: snow"),
        *own,
        AssistantMessage("Paris is sunny, Rome unknown, Oslo snowy, Nice windy."),
        UserMessage("Thanks."),
    ]


@dataclass(frozen=True)
class Lookup:
    q: str


def lookup() -> Tool[Any, Any]:
    return Tool[Lookup, str](name="lookup", description="Look a city up.", handler=None)


def request(messages: list[Message], tools: tuple[Tool[Any, Any], ...] = ()) -> ModelRequest:
    return ModelRequest(
        "wire-forms", "run-1", len(messages), None, "Answer briefly.", tuple(messages), tools, ()
    )


def body_bytes(model: ProviderModel, asked: ModelRequest) -> str:
    return json.dumps(model.prepare(asked).body)  # type: ignore[attr-defined]


@pytest.mark.parametrize("api", MODELS)
def test_a_model_that_sent_the_conversation_builds_what_a_fresh_one_builds(api: str) -> None:
    build, provider = MODELS[api]
    warm, messages, tools = build(), conversation(provider), (lookup(),)
    for end in range(1, len(messages) + 1):
        asked = request(messages[:end], tools)
        assert body_bytes(warm, asked) == body_bytes(build(), asked), f"after {end} messages"
    assert body_bytes(warm, request(messages, tools)) == body_bytes(
        build(), request(messages, tools)
    )


class CountingResults:
    """The model's own tool-result serializer, counting what it serializes."""

    def __init__(self, model: ProviderModel) -> None:
        self.own = model.default_serializers["tool_result"]()
        self.serialized: list[str] = []

    def serialize(self, message: ToolResultMessage) -> Any:
        self.serialized.append(message.call_id)
        return self.own.serialize(message)


@pytest.mark.parametrize("api", MODELS)
def test_each_tool_result_is_serialized_once_however_often_it_is_resent(api: str) -> None:
    build, provider = MODELS[api]
    model, messages = build(), conversation(provider)
    counting = CountingResults(model)
    model.resolve_through(serializers={"tool_result": counting})
    for end in range(1, len(messages) + 1):
        model.prepare(request(messages[:end]))  # type: ignore[attr-defined]

    assert counting.serialized == ["call_a", "call_b", "call_c", "call_d"]


class PrefixedNames:
    """Google's declarations under names of its own: ``fn_<tool>``."""

    def __init__(self, model: ProviderModel) -> None:
        self.own = model.default_serializers["tool"]()

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        declared = self.own.declare(tool)
        return ToolDeclaration({**declared.wire, "name": f"fn_{tool.name}"})


def test_google_rebuilds_a_turn_recorded_elsewhere_when_the_declared_names_change() -> None:
    """A call recorded by another provider is named as the request declares its tool: under
    ``fn_lookup`` while ``lookup`` is declared so, under its own name when it is not."""
    model = _google()
    model.resolve_through(serializers={"tool": PrefixedNames(model)})
    messages = conversation("google")
    for end in range(1, len(messages) + 1):
        for tools in ((lookup(),), ()):
            asked = request(messages[:end], tools)
            fresh = _google()
            fresh.resolve_through(serializers={"tool": PrefixedNames(fresh)})
            assert body_bytes(model, asked) == body_bytes(fresh, asked), (end, tools)

    declared, undeclared = (
        model.prepare(request(messages[:4], tools)).body["contents"][1]["parts"]  # type: ignore[attr-defined]
        for tools in ((lookup(),), ())
    )
    assert [part["functionCall"]["name"] for part in declared[1:]] == ["fn_lookup", "fn_lookup"]
    assert [part["functionCall"]["name"] for part in undeclared[1:]] == ["lookup", "lookup"]
