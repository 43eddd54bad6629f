"""Server-sent event framing (``affordance.adapters.sse``), as the HTML standard has it: from
the bytes of a stream, in chunks cut anywhere."""

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
    "event: content_block_delta",  # the shape most events take: an event line, one data line
    'data: {"b": 2}',
    "",
    "event: two",
    "data: lines",
    "data: of data",
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
    "data: second",
    "",
    "data: é, ü and 雨 cross chunk boundaries",
    "",
    "event: cut",
    "data: a last event without its blank line is dropped",
]

EXPECTED = [
    SseEvent("message_start", '{"a": 1}'),
    SseEvent("content_block_delta", '{"b": 2}'),
    SseEvent("two", "lines\nof data"),
    SseEvent(None, "no space after the colon\n two spaces keep one"),
    SseEvent("ping", ""),
    SseEvent(None, "\nsecond"),
    SseEvent(None, "é, ü and 雨 cross chunk boundaries"),
]


def body(ending: str) -> bytes:
    return "".join(line + ending for line in LINES).encode()


def every_split(data: bytes) -> list[list[bytes]]:
    """``data`` whole, byte by byte, and cut in two at every place."""
    return [[data], [data[i : i + 1] for i in range(len(data))]] + [
        [data[:i], data[i:]] for i in range(1, len(data))
    ]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_events_are_framed_wherever_the_chunks_are_cut(ending: str) -> None:
    for chunks in every_split(body(ending)):
        assert list(read_events(chunks)) == EXPECTED, chunks


def test_line_endings_may_be_mixed() -> None:
    data = b"data: one\r\ndata: two\rdata: three\n\r\nevent: e\r\r"
    assert list(read_events([data])) == [SseEvent(None, "one\ntwo\nthree"), SseEvent("e", "")]


def test_a_last_carriage_return_ends_its_line() -> None:
    assert list(read_events([b"data: x\r", b"\r"])) == [SseEvent(None, "x")]
    assert list(read_events([b"data: x\r\r"])) == [SseEvent(None, "x")]


def test_a_leading_byte_order_mark_is_dropped_once() -> None:
    # Later, the mark is part of a line: a field named "\ufeffdata", which is ignored.
    data = b"\xef\xbb\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n"
    for chunks in every_split(data):
        assert list(read_events(chunks)) == [SseEvent(None, "x")], chunks


def test_malformed_utf8_becomes_replacement_characters() -> None:
    assert list(read_events([b"data: \xff\xfe ok\n\n"])) == [SseEvent(None, "\ufffd\ufffd ok")]


def test_an_event_split_over_many_chunks_is_read_once_whole() -> None:
    text = "x" * 100_000
    data = f"data: {text}\n\n".encode()
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    assert list(read_events(chunks)) == [SseEvent(None, text)]


def test_the_async_reader_frames_the_same_and_closes_its_source() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncIterator[bytes]:
        try:
            for byte in body("\r\n"):
                yield bytes([byte])
        finally:
            closed.append(True)

    async def read() -> list[SseEvent]:
        return [event async for event in aread_events(chunks())]

    assert asyncio.run(read()) == EXPECTED
    assert closed == [True]


@pytest.mark.parametrize("text", ["data: x", "data: x\n", "event: e\r\n"])
def test_nothing_is_dispatched_before_a_blank_line(text: str) -> None:
    assert list(read_events([text.encode()])) == []


class ClosableSource:
    """Chunks from an object that is no generator but has an async ``aclose`` (as an HTTP
    client's byte stream has); records whether that ``aclose`` ran to its end."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = iter(chunks)
        self.closed = False

    def __aiter__(self) -> ClosableSource:
        return self

    async def __anext__(self) -> bytes:
        try:
            return next(self._chunks)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await asyncio.sleep(0)  # a real close awaits the transport
        self.closed = True


MANY = b"data: one\n\ndata: two\n\ndata: three\n\n"


def test_leaving_the_async_reader_early_closes_a_generator_source_before_it_returns() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncIterator[bytes]:
        try:
            for part in MANY.split(b"\n\n"):
                yield part + b"\n\n"
        finally:
            await asyncio.sleep(0)
            closed.append(True)

    async def read_one() -> tuple[SseEvent, list[bool]]:
        events = aread_events(chunks())
        first = await events.__anext__()
        await events.aclose()
        return first, list(closed)  # seen before the loop ends and finalizes what is left

    first, closed_by_then = asyncio.run(read_one())

    assert first == SseEvent(None, "one")
    assert closed_by_then == [True]


def test_leaving_the_async_reader_early_awaits_the_sources_own_aclose() -> None:
    source = ClosableSource([MANY])

    async def read_one() -> tuple[SseEvent, bool]:
        events = aread_events(source)
        first = await events.__anext__()
        await events.aclose()
        return first, source.closed

    first, closed = asyncio.run(read_one())

    assert first == SseEvent(None, "one")
    assert closed


def test_the_async_reader_awaits_the_sources_aclose_once_its_events_run_out() -> None:
    source = ClosableSource([MANY[:5], MANY[5:]])

    async def read() -> tuple[list[SseEvent], bool]:
        return [event async for event in aread_events(source)], source.closed

    events, closed = asyncio.run(read())

    assert [event.data for event in events] == ["one", "two", "three"]
    assert closed
