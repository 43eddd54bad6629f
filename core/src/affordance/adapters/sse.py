"""Server-sent events framed from a response's bytes: what every streaming provider shares.

Streaming adapters hand the raw bytes of their SDK's streaming response (``iter_bytes()``) to
:func:`read_events` and parse each event's data once (``json.loads``), skipping the SDK's
per-event model building. Framing follows the HTML standard: lines end with ``\\n``, ``\\r\\n``
or ``\\r``; an event ends at a blank line; ``event:`` and ``data:`` fields (one space after the
colon is optional), several ``data:`` lines joined with newlines; comments (``:``), ``id:`` and
``retry:`` ignored; a leading byte-order mark dropped; the text decoded as UTF-8 (a malformed
byte becomes U+FFFD). An event cut off before its blank line is dropped, so a truncated stream
loses its last event instead of delivering half of it.

Events are framed on the bytes, not line by line: one ``bytes.find`` per event instead of a
generator step per line through the HTTP client's text and line decoders, which is most of what
reading a stream costs on top of the network. (A blank line cannot hide inside a UTF-8
character, so framing before decoding is exact.)
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator

from affordance._frozen import frozen

__all__ = ["SseEvent", "aclose_source", "aread_events", "read_events"]

_BOM = b"\xef\xbb\xbf"


@frozen
class SseEvent:
    """One event: its ``event:`` name (None when absent) and its data text."""

    event: str | None
    data: str


class _Framer:
    """Bytes in, the complete events so far out; it holds what is not yet a whole event."""

    __slots__ = ("_cr", "_held", "_started")

    def __init__(self) -> None:
        self._held = bytearray()  # "\n" line ends only; no blank line inside
        self._cr = False  # the last chunk ended with "\r": maybe the first half of "\r\n"
        self._started = False  # a byte-order mark can no longer come

    def feed(self, chunk: bytes) -> list[SseEvent]:
        if self._cr or b"\r" in chunk:
            chunk = self._lf(chunk)
        held = self._held
        if held or not self._started:  # most chunks are whole events: they skip this
            if self._started and b"\n\n" not in chunk and not (held[-1:] == chunk[:1] == b"\n"):
                held += chunk  # no event ends in this chunk
                return []
            chunk = bytes(held) + chunk
            held.clear()
            if not self._started:
                if len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                    held += chunk  # too short yet to tell a byte-order mark
                    return []
                self._started = True
                chunk = chunk.removeprefix(_BOM)
        *blocks, rest = chunk.split(b"\n\n")
        if rest:
            held += rest
        return [event for block in blocks if (event := _event(block)) is not None]

    def finish(self) -> list[SseEvent]:
        """The events a last ``\\r`` completes (the one :meth:`feed` held back)."""
        if not self._cr:
            return []
        self._cr = False
        return self.feed(b"\n")

    def _lf(self, chunk: bytes) -> bytes:
        """``chunk`` with "\\n" line ends only; a "\\r" last is held back for the next chunk."""
        if self._cr:
            chunk = b"\r" + chunk
            self._cr = False
        if chunk.endswith(b"\r"):
            self._cr = True
            chunk = chunk[:-1]
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _event(block: bytes) -> SseEvent | None:
    """The event of one block of lines (no blank line inside), or None if it has no field."""
    text = block.decode("utf-8", "replace").lstrip("\n")
    # the two shapes providers send, read without the line loop: one data line (Chat
    # Completions, Gemini), or an event line then one data line (Anthropic, Responses)
    if text.startswith("data: "):
        if "\n" not in text:
            return SseEvent(None, text[6:])
    elif text.startswith("event: "):
        name, _, rest = text.partition("\n")
        if rest.startswith("data: ") and "\n" not in rest:
            return SseEvent(name[7:], rest[6:])
    event: str | None = None
    data: list[str] = []
    for line in text.split("\n"):
        if line.startswith("data: "):
            data.append(line[6:])
        elif line.startswith("event: "):
            event = line[7:]
        elif line and line[0] != ":":
            name, _, value = line.partition(":")
            value = value[1:] if value[:1] == " " else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data or event is not None:
        return SseEvent(event, "\n".join(data))
    return None


def read_events(chunks: Iterable[bytes]) -> Iterator[SseEvent]:
    """The events of a stream's bytes, as they arrive in ``chunks`` of any size."""
    framer = _Framer()
    for chunk in chunks:
        yield from framer.feed(chunk)
    yield from framer.finish()


async def aread_events(chunks: AsyncIterable[bytes]) -> AsyncGenerator[SseEvent, None]:
    """The async form of :func:`read_events`; closing it closes ``chunks`` (an async generator
    left to the garbage collector would be closed later, by a task of its own)."""
    framer = _Framer()
    try:
        async for chunk in chunks:
            for event in framer.feed(chunk):
                yield event
        for event in framer.finish():
            yield event
    finally:
        await aclose_source(chunks)


async def aclose_source(source: object) -> None:
    """``await source.aclose()`` when ``source`` is an async generator (or has ``aclose``)."""
    aclose = getattr(source, "aclose", None)
    if aclose is not None:
        await aclose()
