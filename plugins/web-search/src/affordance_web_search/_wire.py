"""Reading provider dicts defensively: offsets into text, strings that may be missing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["char_offset", "clamp_span", "nearest", "string", "text_of", "unique"]


def string(mapping: Mapping[str, Any], key: str) -> str | None:
    """``mapping[key]`` when it is a non-empty string, else None."""
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def text_of(mapping: Mapping[str, Any], key: str) -> str:
    """``mapping[key]`` when it is a string (even empty), else ``""``."""
    value = mapping.get(key)
    return value if isinstance(value, str) else ""


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def clamp_span(start: Any, end: Any, length: int) -> tuple[int, int] | None:
    """``(start, end)`` kept inside a text of ``length`` characters; None when either offset
    is missing or not an integer."""
    first, last = _index(start), _index(end)
    if first is None or last is None:
        return None
    first = min(max(first, 0), length)
    return first, min(max(last, first), length)


def char_offset(encoded: bytes, byte_offset: int) -> int:
    """The character offset of UTF-8 byte offset ``byte_offset`` into ``encoded``; an offset
    inside a multi-byte character counts as that character's start."""
    byte_offset = min(max(byte_offset, 0), len(encoded))
    return len(encoded[:byte_offset].decode("utf-8", errors="ignore"))


def nearest(text: str, needle: str, around: int) -> int | None:
    """The start of the occurrence of ``needle`` in ``text`` closest to ``around``."""
    best: int | None = None
    found = text.find(needle)
    while found != -1:
        if best is None or abs(found - around) < abs(best - around):
            best = found
        found = text.find(needle, found + 1)
    return best


def unique(values: Iterable[str | None]) -> tuple[str, ...]:
    """The non-empty values, first-seen order, without duplicates."""
    return tuple(dict.fromkeys(value for value in values if value))
