"""A stream event that cannot be placed in the turn — a block started at an index already
used, a delta or stop for a block that is not open, anything after ``message_stop`` — ends the
run with a readable error naming the provider, before any of the turn's calls runs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from loopback import (
    MESSAGES_PATH,
    SseEvent,
    SseReply,
    message_stream,
    message_tool_uses,
)

from affordance import PromptEvaluationError

CALLS = [
    ("toolu_a", "get_weather", {"city": "Paris"}),
    ("toolu_b", "get_weather", {"city": "Oslo"}),
]
STREAMED = ["stream", "astream"]


def _stream(edit: Callable[[list[SseEvent]], list[SseEvent]], calls: Any = CALLS) -> SseReply:
    reply = message_stream(message_tool_uses(calls, text="Checking."), text_chunk=3, json_chunk=5)
    return dataclasses.replace(reply, events=tuple(edit(list(reply.events))))


def _starts(events: list[SseEvent]) -> list[SseEvent]:
    return [e for e in events if e.event == "content_block_start"]


def _tool_starts(events: list[SseEvent]) -> list[SseEvent]:
    return [e for e in _starts(events) if e.data["content_block"]["type"] == "tool_use"]


def _failure(loopback: Any, prompt: Any, mode: str) -> PromptEvaluationError:
    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, prompt)
    return raised.value


@pytest.mark.parametrize("mode", STREAMED)
def test_a_second_block_started_at_an_open_index_is_refused_and_no_call_runs(
    loopback: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def second_start_at_the_first_index(events: list[SseEvent]) -> list[SseEvent]:
        first, second = _tool_starts(events)
        again = SseEvent({**second.data, "index": first.data["index"]}, event=second.event)
        events.insert(events.index(first) + 1, again)
        return events

    loopback.server.script(MESSAGES_PATH, _stream(second_start_at_the_first_index))

    error = _failure(loopback, make_prompt(), mode)

    assert (error.phase, error.provider) == ("response", "anthropic")
    assert "a second content block started at index 1" in error.message
    assert calls.seen == []
    assert len(loopback.server.requests) == 1


@pytest.mark.parametrize("mode", STREAMED)
def test_a_block_started_again_at_an_index_already_stopped_is_refused(
    loopback: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def second_block_reusing_the_first_index(events: list[SseEvent]) -> list[SseEvent]:
        first, second = _tool_starts(events)
        index = first.data["index"]
        reused = second.data["index"]
        return [
            SseEvent({**e.data, "index": index}, event=e.event)
            if isinstance(e.data, dict) and e.data.get("index") == reused
            else e
            for e in events
        ]

    loopback.server.script(MESSAGES_PATH, _stream(second_block_reusing_the_first_index))

    error = _failure(loopback, make_prompt(), mode)

    assert "a second content block started at index 1" in error.message
    assert calls.seen == []


@pytest.mark.parametrize("mode", STREAMED)
def test_a_delta_for_a_block_already_stopped_is_refused(
    loopback: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def delta_after_its_stop(events: list[SseEvent]) -> list[SseEvent]:
        (start,) = _tool_starts(events)
        index = start.data["index"]
        stop = next(
            e for e in events if e.event == "content_block_stop" and e.data["index"] == index
        )
        late = SseEvent(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
            event="content_block_delta",
        )
        events.insert(events.index(stop) + 1, late)
        return events

    loopback.server.script(MESSAGES_PATH, _stream(delta_after_its_stop, CALLS[:1]))

    error = _failure(loopback, make_prompt(), mode)

    assert "a content_block_delta event names the block at index 1, which already stopped" in (
        error.message
    )
    assert calls.seen == []


@pytest.mark.parametrize("mode", STREAMED)
def test_an_event_after_message_stop_is_refused(
    loopback: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def text_after_the_end(events: list[SseEvent]) -> list[SseEvent]:
        late = SseEvent(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "!"},
            },
            event="content_block_delta",
        )
        return [*events, late]

    loopback.server.script(MESSAGES_PATH, _stream(text_after_the_end, CALLS[:1]))

    error = _failure(loopback, make_prompt(), mode)

    assert (error.phase, error.provider) == ("response", "anthropic")
    assert "'content_block_delta' event arrived after the event that ended the turn" in (
        error.message
    )
    assert calls.seen == []
