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

from affordance._fastinit import fast_init

__all__ = ["SseEvent", "aclose_source", "aread_events", "read_events"]


@fast_init
@dataclass(frozen=True, slots=True)
class SseEvent:
    """One event: its ``event:`` name (None when absent) and its data text."""

    event: str | None
    data: str


def _field(line: str) -> tuple[str, str]:
    """A field line's name and value (one space after the colon dropped); a line without a
    colon is a field with an empty value."""
    name, _, value = line.partition(":")
    return name, value[1:] if value[:1] == " " else value


# The two readers below frame lines inline, the common lines first (``data: ``, the blank line
# that ends an event, ``event: ``, as servers write them: with the space): a function call per
# line is a measurable part of reading a stream. Other lines go through ``_field`` (a field
# without the space, or without a colon); ``id:`` and ``retry:`` are ignored, as are comments.


def read_events(lines: Iterable[str]) -> Iterator[SseEvent]:
    """The events of a stream's lines (without their line endings)."""
    event: str | None = None
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r")
        if line.startswith("data: "):
            data.append(line[6:])
        elif not line:
            if data or event is not None:
                yield SseEvent(event, "\n".join(data))
                event, data = None, []
        elif line.startswith("event: "):
            event = line[7:]
        elif line[0] != ":":
            name, value = _field(line)
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)


async def aread_events(lines: AsyncIterable[str]) -> AsyncGenerator[SseEvent, None]:
    """The async form of :func:`read_events`; closing it closes ``lines`` (an async generator
    left to the garbage collector would be closed later, by a task of its own)."""
    event: str | None = None
    data: list[str] = []
    try:
        async for raw in lines:
            line = raw.rstrip("\r")
            if line.startswith("data: "):
                data.append(line[6:])
            elif not line:
                if data or event is not None:
                    yield SseEvent(event, "\n".join(data))
                    event, data = None, []
            elif line.startswith("event: "):
                event = line[7:]
            elif line[0] != ":":
                name, value = _field(line)
                if name == "event":
                    event = value
                elif name == "data":
                    data.append(value)
    finally:
        await aclose_source(lines)


async def aclose_source(source: object) -> None:
    """``await source.aclose()`` when ``source`` is an async generator (or has ``aclose``)."""
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()
