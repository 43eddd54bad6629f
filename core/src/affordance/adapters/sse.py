"""Server-sent events read from a response's lines: what every streaming provider shares.

Streaming adapters read the raw lines of their SDK's streaming response and parse each event's
data once (``json.loads``), skipping the SDK's per-event model building. Framing follows the
HTML standard: ``event:`` and ``data:`` fields (one space after the colon is optional), several
``data:`` lines joined with newlines, comments (``:``) ignored, an event dispatched at a blank
line. An event cut off before its blank line is dropped, so a truncated stream loses its last
event instead of delivering half of it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from dataclasses import dataclass

__all__ = ["SseEvent", "aclose_source", "aread_events", "read_events"]


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One event: its ``event:`` name (None when absent) and its data text."""

    event: str | None
    data: str


class _Framer:
    __slots__ = ("data", "event")

    def __init__(self) -> None:
        self.event: str | None = None
        self.data: list[str] = []

    def line(self, line: str) -> SseEvent | None:
        if not line:
            if not self.data and self.event is None:
                return None
            event = SseEvent(self.event, "\n".join(self.data))
            self.event, self.data = None, []
            return event
        if line[0] == ":":
            return None
        field, _, value = line.partition(":")
        if value[:1] == " ":
            value = value[1:]
        if field == "data":
            self.data.append(value)
        elif field == "event":
            self.event = value
        return None


def read_events(lines: Iterable[str]) -> Iterator[SseEvent]:
    """The events of a stream's lines (without their line endings)."""
    framer = _Framer()
    for line in lines:
        event = framer.line(line.rstrip("\r"))
        if event is not None:
            yield event


async def aread_events(lines: AsyncIterable[str]) -> AsyncGenerator[SseEvent, None]:
    """The async form of :func:`read_events`; closing it closes ``lines`` (an async generator
    left to the garbage collector would be closed later, by a task of its own)."""
    framer = _Framer()
    try:
        async for line in lines:
            event = framer.line(line.rstrip("\r"))
            if event is not None:
                yield event
    finally:
        await aclose_source(lines)


async def aclose_source(source: object) -> None:
    """``await source.aclose()`` when ``source`` is an async generator (or has ``aclose``)."""
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()
