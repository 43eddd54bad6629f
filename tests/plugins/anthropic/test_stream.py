"""The translator on its own, framed by the core's SSE reader: the deltas the loopback streams
never send (thinking and signature deltas, text in the start event, events without an
``event:`` line), and a whole message read as its blocks' starts and stops."""

from __future__ import annotations

import json
from typing import Any

import pytest

from affordance.adapters import ProviderTurn, UnusableResponseError, turn_from_deltas
from affordance.adapters.sse import read_events
from affordance.runtime.model.deltas import (
    ProviderItem,
    TextPiece,
    ToolCallReady,
    TurnAssembler,
    TurnEnd,
)
from affordance_anthropic._reply import MessagesReply


def sse(*events: dict[str, Any], named: bool = True) -> list[str]:
    lines: list[str] = [": a comment"]
    for event in events:
        if named:
            lines.append(f"event: {event['type']}")
        lines.extend([f"data:{json.dumps(event)}", ""])
    return lines


def parse_message(data: Any, *, hosted: bool) -> ProviderTurn:
    """A whole message's turn, as the model reads it: the translator's ``whole``."""
    return turn_from_deltas(MessagesReply(hosted=hosted).whole(data))


def translate(lines: list[str], *, hosted: bool = False) -> tuple[list[Any], MessagesReply]:
    translator = MessagesReply(hosted=hosted)
    body = "".join(f"{line}\n" for line in lines).encode()
    deltas = [delta for event in read_events([body]) for delta in translator(event)]
    return deltas, translator


def events(*blocks: list[dict[str, Any]], stop_reason: str = "end_turn") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}},
        },
        {"type": "ping"},
    ]
    for block_events in blocks:
        out.extend(block_events)
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 9, "input_tokens": None},
        }
    )
    out.append({"type": "message_stop"})
    return out


THINKING = [
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "Let me "},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "think."},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "signature_delta", "signature": "sig"},
    },
    {"type": "content_block_stop", "index": 0},
]
TEXT = [
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "Hel"}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "lo."}},
    {"type": "content_block_stop", "index": 1},
]
EMPTY_CALL = [
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "t", "name": "ping", "input": {}},
    },
    {"type": "content_block_stop", "index": 2},
]


def test_thinking_is_rebuilt_with_its_signature_and_text_from_the_start_event_counts() -> None:
    deltas, _ = translate(sse(*events(THINKING, TEXT)))

    assert isinstance(deltas[-1], TurnEnd)  # message_stop ended the turn
    assembler = TurnAssembler()
    for delta in deltas:
        assembler.add(delta)
    turn = assembler.turn()
    assert turn.text == "Hello."
    assert turn.provider_items == (
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig"},
        {"type": "text", "text": "Hello."},
    )
    assert [d.text for d in deltas if isinstance(d, TextPiece)] == ["Hel", "lo."]
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (5, 9)  # a null keeps 5
    assert turn.response_id == "msg_1"


def test_events_without_an_event_line_are_read_by_their_type() -> None:
    deltas, _ = translate(sse(*events(TEXT), named=False))

    assert isinstance(deltas[-1], TurnEnd)


def test_a_call_without_input_pieces_is_ready_with_an_empty_object() -> None:
    deltas, _ = translate(sse(*events(EMPTY_CALL, stop_reason="tool_use")), hosted=True)

    ready = [d for d in deltas if isinstance(d, ToolCallReady)]
    assert ready == [ToolCallReady(2, {})]  # a call is keyed by its block's index
    (item,) = [d for d in deltas if isinstance(d, ProviderItem)]
    assert (item.echo, item.hosted) == (True, True)
    assert deltas[-1] == TurnEnd(deltas[-1].usage, "tool_calls", "msg_1")


def test_a_whole_message_makes_the_turn_its_stream_makes() -> None:
    deltas, _ = translate(sse(*events(THINKING, TEXT, EMPTY_CALL, stop_reason="tool_use")))
    assembler = TurnAssembler()
    for delta in deltas:
        assembler.add(delta)
    blocks = [
        {"type": "thinking", "thinking": "Let me think.", "signature": "sig"},
        {"type": "text", "text": "Hello."},
        {"type": "tool_use", "id": "t", "name": "ping", "input": {}},
    ]
    usage = {"input_tokens": 5, "output_tokens": 9}
    message = {"id": "msg_1", "content": blocks, "stop_reason": "tool_use", "usage": usage}

    turn = parse_message(message, hosted=False)

    assert turn == assembler.turn()
    assert (turn.text, turn.finish_reason, turn.tool_calls[0].arguments) == (
        "Hello.",
        "tool_calls",
        {},
    )


def test_a_whole_tool_use_whose_input_is_no_object_keeps_its_json_for_the_executor() -> None:
    block = {"type": "tool_use", "id": "t", "name": "ping", "input": [1, 2]}

    turn = parse_message({"id": "m", "content": [block], "stop_reason": "tool_use"}, hosted=False)

    assert turn.tool_calls[0].arguments == "[1, 2]"  # reported to the model as a failed call
    assert turn.provider_items == ({**block, "input": {}},)  # echoed as an object


def test_a_text_block_that_starts_without_its_text_is_refused() -> None:
    start = {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}

    with pytest.raises(UnusableResponseError, match="a text block has no text"):
        translate(sse(*events([start])))


def test_a_whole_body_of_type_error_is_unusable_and_says_the_error_as_a_stream_error_does():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    with pytest.raises(UnusableResponseError, match="the body is an error: overloaded_error: busy"):
        parse_message(body, hosted=False)
    with pytest.raises(UnusableResponseError, match=r"the body is an error: busy$"):
        parse_message({"type": "error", "error": {"message": "busy"}}, hosted=False)
    with pytest.raises(UnusableResponseError, match=r"the body is an error: no message$"):
        parse_message({"type": "error", "error": "busy"}, hosted=False)
