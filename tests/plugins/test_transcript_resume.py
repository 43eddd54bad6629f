"""A conversation stored with ``affordance.transcript`` and resumed sends the provider exactly
what it would have sent had it never stopped: for each provider API, with its real SDK against
the loopback server, a two-turn conversation runs once straight through and once with the
transcript after turn 1 written with ``dumps``, read back with ``loads`` (in a new adapter, on a
new server: another process, as far as the run can tell) and continued with ``messages=``;
each conversation runs plain and streamed.

Turn 1 calls a tool and answers with what each provider wants echoed back — a Responses
reasoning item (encrypted content included), Anthropic thinking blocks with their signature and
a redacted one, Gemini thought signatures on the call and on the answer, a Chat Completions call
whose arguments string is spaced unusually — so the continuation's request body, compared **byte
for byte** with the uninterrupted run's, proves each survives exactly: the SDKs write a body
from its values in order, so equal bytes mean equal values and types (a string stays a string)
in the same key order, which comparing the parsed JSON would not show (dicts compare equal in
any order). Turn 1's user message carries an image, so the attachment survives storing too.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hosted_tools.runs import PROVIDER_WIRES, Wire, available
from loopback import (
    JsonReply,
    candidate,
    chat_text,
    chat_tool_calls,
    function_call_item,
    function_call_part,
    generate_response,
    google_text,
    message,
    message_item,
    message_text,
    output_text_part,
    reasoning_item,
    response,
    response_text,
    text_block,
    text_part,
    tool_use_block,
)

from affordance import Image, PromptTemplate
from affordance.adapters import Message, UserMessage
from affordance.transcript import dumps, loads

FIRST = "Wie wird das Wetter in Zürich?"
ASKED = UserMessage(FIRST, attachments=(Image(data=b"\x89PNG\r\n\x1a\n" + bytes(range(24))),))
"""Turn 1's message carries an image: the stored transcript (version 2) must keep its bytes."""
SECOND = "And tomorrow?"
CITY = {"city": "Zürich", "unit": "c"}


@dataclass(frozen=True)
class Conversation:
    """One provider API's replies: turn 1's tool call and answer, then turn 2's answer; and
    what must reach the continuation's body (``echoed``: the provider items of turn 1)."""

    replies: Callable[[], list[Any]]
    echoed: Callable[[dict[str, Any]], None]


def _responses() -> list[Any]:
    thinking = reasoning_item("Zürich first.", item_id="rs_1", encrypted_content="gAAA-Zürich==")
    called = function_call_item("call_a", "get_weather", CITY)
    answered = reasoning_item("Sunny it is.", item_id="rs_2", encrypted_content="gAAA-sunny==")
    said = message_item(output_text_part("Sunny in Zürich."), item_id="msg_1")
    return [response([thinking, called]), response([answered, said]), response_text("Also.")]


def _responses_echoed(body: dict[str, Any]) -> None:
    items = body["input"]
    reasoning = [item for item in items if item.get("type") == "reasoning"]
    assert [(r["id"], r["encrypted_content"]) for r in reasoning] == [
        ("rs_1", "gAAA-Zürich=="),
        ("rs_2", "gAAA-sunny=="),
    ]


SPACED = '{ "city" : "Zürich",\n  "unit":"c" }'
"""Chat Completions arguments as the model wrote them: a string, sent back verbatim."""


def _chat() -> list[Any]:
    return [
        chat_tool_calls([("call_a", "get_weather", SPACED)]),
        chat_text("Sunny in Zürich."),
        chat_text("Also."),
    ]


def _chat_echoed(body: dict[str, Any]) -> None:
    (called,) = [m for m in body["messages"] if m.get("tool_calls")]
    assert called["tool_calls"][0]["function"]["arguments"] == SPACED


THINKING = {"type": "thinking", "thinking": "Zürich first.", "signature": "sig-Zürich"}
REDACTED = {"type": "redacted_thinking", "data": "opaque=="}


def _anthropic() -> list[Any]:
    return [
        message([THINKING, tool_use_block("toolu_a", "get_weather", CITY)], stop_reason="tool_use"),
        message([REDACTED, text_block("Sunny in Zürich.")]),
        message_text("Also."),
    ]


def _anthropic_echoed(body: dict[str, Any]) -> None:
    blocks = [b for m in body["messages"] if m["role"] == "assistant" for b in m["content"]]
    assert THINKING in blocks
    assert REDACTED in blocks


CALL_SIGNATURE = b"gemini-signature-call"
TEXT_SIGNATURE = b"gemini-signature-text"


def _google() -> list[Any]:
    called = function_call_part("get_weather", CITY, id="fc_1", thought_signature=CALL_SIGNATURE)
    said = text_part("Sunny in Zürich.", thought_signature=TEXT_SIGNATURE)
    return [
        generate_response([candidate([called])]),
        generate_response([candidate([said])]),
        google_text("Also."),
    ]


def _google_echoed(body: dict[str, Any]) -> None:
    parts = [p for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
    signatures = [p.get("thoughtSignature") for p in parts]
    assert signatures == [base64.b64encode(s).decode() for s in (CALL_SIGNATURE, TEXT_SIGNATURE)]


CONVERSATIONS = {
    "openai": Conversation(_responses, _responses_echoed),
    "openai-chat": Conversation(_chat, _chat_echoed),
    "anthropic": Conversation(_anthropic, _anthropic_echoed),
    "google": Conversation(_google, _google_echoed),
}
"""By the wire's name in ``PROVIDER_WIRES``: Responses, Chat Completions, Messages, Gemini."""


def _bodies(name: str) -> list[Any]:
    return [r.body if isinstance(r, JsonReply) else r for r in CONVERSATIONS[name].replies()]


def _evaluate(adapter: Any, prompt: PromptTemplate[Any], messages: list[Message], way: str) -> Any:
    if way == "plain":
        return adapter.evaluate(prompt, messages=messages)
    with adapter.stream(prompt, messages=messages) as events:
        for _ in events:
            pass
    return events.response


def _turn(
    wire: Wire, way: str, bodies: list[Any], run: Callable[[Any], Any]
) -> tuple[Any, list[bytes]]:
    """``run(adapter)`` on a new server scripted with ``bodies`` (sent plain or as the
    provider's stream): its result and the raw bodies the server received."""
    with wire.running() as (server, adapter):
        for body in bodies:
            if way == "plain":
                server.script(wire.path, JsonReply(body))
            else:
                server.script(wire.stream_path or wire.path, wire.stream(body))
        result = run(adapter)
        server.assert_script_consumed()
        return result, [request.raw_body for request in server.requests]


def _first_turn(prompt: PromptTemplate[Any], way: str) -> Callable[[Any], tuple[Message, ...]]:
    def run(adapter: Any) -> tuple[Message, ...]:
        response = _evaluate(adapter, prompt, [ASKED], way)
        assert response.text == "Sunny in Zürich."
        return (ASKED, *response.messages)

    return run


def _second_turn(
    prompt: PromptTemplate[Any], way: str, history: tuple[Message, ...]
) -> Callable[[Any], None]:
    def run(adapter: Any) -> None:
        response = _evaluate(adapter, prompt, [*history, UserMessage(SECOND)], way)
        assert response.text == "Also."

    return run


@pytest.mark.parametrize("way", ["plain", "streamed"])
@pytest.mark.parametrize("name", available(*CONVERSATIONS))
def test_a_resumed_conversation_sends_the_bytes_of_an_uninterrupted_one(
    name: str, way: str, prompt: PromptTemplate[Any], calls: Any
) -> None:
    wire = PROVIDER_WIRES[name]
    first, second, third = _bodies(name)

    def straight_through(adapter: Any) -> None:
        history = _first_turn(prompt, way)(adapter)
        _second_turn(prompt, way, history)(adapter)

    _, uninterrupted = _turn(wire, way, [first, second, third], straight_through)
    history, _ = _turn(wire, way, [first, second], _first_turn(prompt, way))
    stored = dumps(history)
    resumed = loads(stored.encode())
    _, continued = _turn(wire, way, [third], _second_turn(prompt, way, resumed))

    assert resumed == history
    assert len(uninterrupted) == 3
    assert continued == [uninterrupted[2]]  # byte for byte
    CONVERSATIONS[name].echoed(json.loads(continued[0]))
    assert [seen[:2] for seen in calls.seen] == [("get_weather", "Zürich")] * 2


def test_every_provider_api_is_covered() -> None:
    assert set(CONVERSATIONS) == set(PROVIDER_WIRES)
