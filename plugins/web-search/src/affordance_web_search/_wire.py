"""Reading provider dicts defensively: offsets into text, strings that may be missing."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from itertools import accumulate
from typing import Any

__all__ = [
    "Utf8Offsets",
    "clamp_span",
    "indexed_span",
    "integer",
    "nearest",
    "string",
    "unique",
]


def string(mapping: Mapping[str, Any], key: str) -> str | None:
    """``mapping[key]`` when it is a non-empty string, else None."""
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def integer(value: Any) -> int | None:
    """``value`` when it is an int (a bool is not), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def clamp_span(start: Any, end: Any, length: int) -> tuple[int, int] | None:
    """``(start, end)`` kept inside a text of ``length`` characters; None when either offset
    is missing or not an integer."""
    first, last = integer(start), integer(end)
    if first is None or last is None:
        return None
    first = min(max(first, 0), length)
    return first, min(max(last, first), length)


def indexed_span(
    fields: Mapping[str, Any], text: str | None, offset: int
) -> tuple[int, int] | None:
    """The span of an OpenAI ``url_citation``: its ``start_index``/``end_index`` count
    characters of ``text`` (clamped into it), which begins at ``offset`` of the whole answer;
    None without the text or the indices."""
    if text is None:
        return None
    span = clamp_span(fields.get("start_index"), fields.get("end_index"), len(text))
    return None if span is None else (span[0] + offset, span[1] + offset)


_CHARACTER_STARTS = bytes(0 if 0x80 <= byte <= 0xBF else 1 for byte in range(256))
"""Per byte value: 1 where a UTF-8 character starts, 0 for a continuation byte."""


class Utf8Offsets:
    """Character offsets of UTF-8 byte offsets into one text, each in constant time after one
    linear pass over the text (a table of the characters started up to each byte).

    An offset inside a multi-byte character counts as that character's start; offsets are
    clamped to the text. A lone surrogate (JSON allows ``"\\ud800"``) counts as the three
    bytes ``surrogatepass`` writes for it.
    """

    __slots__ = ("_started", "length", "size")

    def __init__(self, text: str) -> None:
        self.length = len(text)
        if text.isascii():
            self.size = self.length
            self._started: array[int] | None = None
            return
        encoded = text.encode("utf-8", errors="surrogatepass")
        self.size = len(encoded)
        # _started[b]: how many characters start in encoded[:b + 1]
        self._started = array("q", accumulate(encoded.translate(_CHARACTER_STARTS)))

    def character(self, byte_offset: int) -> int:
        """The character offset of ``byte_offset`` (clamped to the text)."""
        byte_offset = min(max(byte_offset, 0), self.size)
        if self._started is None:
            return byte_offset
        if byte_offset == self.size:
            return self.length
        return self._started[byte_offset] - 1


def nearest(text: str, needle: str, around: int, reach: int) -> int | None:
    """The start of the occurrence of ``needle`` in ``text`` closest to ``around`` and at most
    ``reach`` characters from it (the earlier one on a tie); None when there is none. The work
    is bounded by ``reach`` and the needle, not by the text."""
    low, high = max(around - reach, 0), around + reach
    before = text.rfind(needle, low, min(around, high) + len(needle))
    after = text.find(needle, around + 1, high + len(needle))
    if before == -1:
        return None if after == -1 else after
    if after == -1 or around - before <= after - around:
        return before
    return after


def unique(values: Iterable[str | None]) -> tuple[str, ...]:
    """The non-empty values, first-seen order, without duplicates."""
    return tuple(dict.fromkeys(value for value in values if value))
