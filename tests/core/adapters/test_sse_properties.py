"""Properties of the SSE framing: for any stream, cut into chunks anywhere, ``read_events``
frames the same events as the HTML standard's algorithm read line by line.

The reference below follows the standard's steps one line at a time, over the decoded text; the
reader under test frames on bytes, in chunks. Hypothesis draws blocks of lines: the shapes
providers send (one data line; an event line, then one data line) and any lines at all (fields
with and without the space, comments, ``id``/``retry``, unknown fields, blank lines, any
unicode); the
line endings (``\\n``, ``\\r\\n``, ``\\r``, mixed), a leading byte-order mark, and the places the
bytes are cut. Derandomized and bounded: under a second.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's core envs run without it

from hypothesis import given, settings
from hypothesis import strategies as st

from affordance.adapters.sse import SseEvent, aread_events, read_events

PROPERTIES = settings(max_examples=200, derandomize=True, deadline=None, database=None)

_values = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12)
_lines = st.one_of(
    st.builds(lambda v: f"data: {v}", _values),
    st.builds(lambda v: f"data:{v}", _values),
    st.builds(lambda v: f"event: {v}", _values),
    st.builds(lambda v: f"event:{v}", _values),
    st.builds(lambda v: f":{v}", _values),
    st.sampled_from(["", "", "data", "event", "id: 3", "retry: 10", "data:", "other: x"]),
    _values,  # anything at all: a field named by the whole line
)
_endings = st.sampled_from(["\n", "\r\n", "\r"])
_blocks = st.one_of(
    # the shapes providers send, which the reader frames without its line loop
    st.builds(lambda v: [f"data: {v}"], _values),
    st.builds(lambda e, v: [f"event: {e}", f"data: {v}"], _values, _values),
    st.lists(_lines, max_size=4),
)


def reference(text: str) -> list[SseEvent]:
    """The standard's algorithm over ``text``'s lines (a trailing unterminated line is no line)."""
    events: list[SseEvent] = []
    event: str | None = None
    data: list[str] = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]
    for line in lines:
        if not line:
            if data or event is not None:
                events.append(SseEvent(event, "\n".join(data)))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    return events


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[bytes]]:
    blocks = draw(st.lists(_blocks, max_size=5))
    lines = [line for block in blocks for line in (*block, "")]  # each block, then a blank line
    if lines and draw(st.booleans()):
        lines.pop()  # the last event is cut before its blank line
    endings = draw(st.lists(_endings, min_size=len(lines), max_size=len(lines)))
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=True))
    data = text.encode()
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    cuts = sorted(draw(st.sets(st.integers(0, len(data)), max_size=6)))
    bounds = [0, *cuts, len(data)]
    return data, [data[a:b] for a, b in itertools.pairwise(bounds)]


@PROPERTIES
@given(streams())
def test_chunks_cut_anywhere_frame_as_the_standard_reads_lines(
    stream: tuple[bytes, list[bytes]],
) -> None:
    data, chunks = stream
    expected = reference(data.removeprefix(b"\xef\xbb\xbf").decode())
    assert list(read_events(chunks)) == expected
    assert list(read_events([data])) == expected


@PROPERTIES
@given(streams())
def test_the_async_reader_agrees(stream: tuple[bytes, list[bytes]]) -> None:
    data, chunks = stream

    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def read() -> list[SseEvent]:
        return [event async for event in aread_events(source())]

    assert asyncio.run(read()) == list(read_events([data]))
