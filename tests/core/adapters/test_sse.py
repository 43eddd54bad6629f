"""Server-sent event framing (``affordance.adapters.sse``), as the HTML standard has it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from affordance.adapters.sse import SseEvent, aread_events, read_events

LINES = [
    ": a comment, ignored",
    "event: message_start",
    'data: {"a": 1}',
    "",
    "data:no space after the colon",
    "data:  two spaces keep one",
    "id: 7",
    "retry: 100",
    "",
    "",  # a blank line with nothing read dispatches nothing
    "event:ping",
    "",  # an event with no data is still an event
    "data",  # a field without a colon: data with an empty value
    "data: second\r",  # a stray carriage return is not part of the value
    "",
    "event: cut",
    "data: a last event without its blank line is dropped",
]

EXPECTED = [
    SseEvent("message_start", '{"a": 1}'),
    SseEvent(None, "no space after the colon\n two spaces keep one"),
    SseEvent("ping", ""),
    SseEvent(None, "\nsecond"),
]


def test_lines_are_framed_into_events() -> None:
    assert list(read_events(LINES)) == EXPECTED


def test_the_async_reader_frames_the_same_and_closes_its_source() -> None:
    closed: list[bool] = []

    async def lines() -> AsyncIterator[str]:
        try:
            for line in LINES:
                yield line
        finally:
            closed.append(True)

    async def read() -> list[SseEvent]:
        return [event async for event in aread_events(lines())]

    assert asyncio.run(read()) == EXPECTED
    assert closed == [True]


@pytest.mark.parametrize("line", ["data: x", "event: e"])
def test_nothing_is_dispatched_before_a_blank_line(line: str) -> None:
    assert list(read_events([line])) == []
