"""The stream translator on its own, framed by the core's SSE reader: the deltas the loopback
streams never send (thinking and signature deltas, text in the start event, events without an
``event:`` line)."""

from __future__ import annotations

import json
from typing import Any

from affordance.adapters.sse import read_events
from affordance.runtime.model.deltas import (
    ProviderItem,
    TextPiece,
    ToolCallReady,
    TurnAssembler,
    TurnEnd,
)
from affordance_anthropic._stream import StreamTranslator


def sse(*events: dict[str, Any], named: bool = True) -> list[str]:
    lines: list[str] = [": a comment"]
    for event in events:
        if named:
            lines.append(f"event: {event['type']}")
        lines.extend([f"data:{json.dumps(event)}", ""])
    return lines


def translate(lines: list[str], *, hosted: bool = False) -> tuple[list[Any], StreamTranslator]:
    translator = StreamTranslator(hosted=hosted)
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
    deltas, translator = translate(sse(*events(THINKING, TEXT)))

    assert translator.done
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
    deltas, translator = translate(sse(*events(TEXT), named=False))

    assert translator.done
    assert isinstance(deltas[-1], TurnEnd)


def test_a_call_without_input_pieces_is_ready_with_an_empty_object() -> None:
    deltas, _ = translate(sse(*events(EMPTY_CALL, stop_reason="tool_use")), hosted=True)

    ready = [d for d in deltas if isinstance(d, ToolCallReady)]
    assert ready == [ToolCallReady(0, {})]
    (item,) = [d for d in deltas if isinstance(d, ProviderItem)]
    assert (item.echo, item.hosted) == (True, True)
    assert deltas[-1] == TurnEnd(deltas[-1].usage, "tool_calls", "msg_1")
