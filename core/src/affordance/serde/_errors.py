"""Errors raised by `parse`, and the text helpers that keep their messages short for an LLM.

`InvalidValueError` is internal: converters raise it with paths relative to the value they
checked, each enclosing converter prefixes its key, and `parse` turns it into `ParseError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from affordance._frozen import frozen

__all__ = [
    "MAX_REPR",
    "FieldError",
    "InvalidValueError",
    "ParseError",
    "describe_value",
    "format_path",
    "short_repr",
    "union_failure",
]

MAX_REPR = 60
"""Longest repr quoted in a message; longer ones are cut with an ellipsis."""


@frozen
class FieldError:
    """One problem in the data, at `path` (object keys and list indices from the root)."""

    path: tuple[str | int, ...]
    message: str

    def __str__(self) -> str:
        location = format_path(self.path)
        return f"{location}: {self.message}" if location else self.message


class ParseError(ValueError):
    """Data did not fit the type; `errors` lists every problem found, not just the first."""

    errors: tuple[FieldError, ...]
    type_name: str

    def __init__(self, errors: Iterable[FieldError], *, type_name: str) -> None:
        self.errors = tuple(errors)
        self.type_name = type_name
        count = len(self.errors)
        noun = "error" if count == 1 else "errors"
        lines = [f"{count} validation {noun} for {type_name}:"]
        lines.extend(f"  {error}" for error in self.errors)
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword-only constructor would otherwise break pickling (e.g. across processes).
        return (_rebuild_parse_error, (self.errors, self.type_name))


def _rebuild_parse_error(errors: tuple[FieldError, ...], type_name: str) -> ParseError:
    return ParseError(errors, type_name=type_name)


class InvalidValueError(Exception):
    """Internal signal from a converter: the value it was given does not fit."""

    __slots__ = ("errors", "expected_what")

    def __init__(self, errors: list[FieldError], expected_what: str | None = None) -> None:
        super().__init__()
        self.errors = errors
        # Set when the value was of the wrong kind altogether: what was expected instead.
        self.expected_what = expected_what

    @classmethod
    def expected(cls, what: str, value: object) -> InvalidValueError:
        message = f"expected {what}, got {describe_value(value)}"
        return cls([FieldError((), message)], expected_what=what)

    @classmethod
    def message(cls, message: str) -> InvalidValueError:
        return cls([FieldError((), message)])

    def under(self, key: str | int) -> list[FieldError]:
        """The errors as seen from the enclosing value, where this one sits at `key`."""
        return [FieldError((key, *error.path), error.message) for error in self.errors]


def short_repr(value: object) -> str:
    """`repr(value)`, cut to `MAX_REPR` characters so a huge input cannot flood a message."""
    if isinstance(value, str) and len(value) > MAX_REPR:
        value = value[: MAX_REPR + 1]  # repr only what can be shown
    text = repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


def describe_value(value: object) -> str:
    """A value as quoted in messages: `42 (int)`, `'x' (str)`, or `null`."""
    if value is None:
        return "null"
    return f"{short_repr(value)} ({type(value).__name__})"


def format_path(path: tuple[str | int, ...]) -> str:
    """`("filters", "tags", 2)` → `filters.tags[2]`; keys that are not identifiers are quoted."""
    parts: list[str] = []
    for part in path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part.isidentifier():
            parts.append(f".{part}" if parts else part)
        else:
            parts.append(f"[{part!r}]")
    return "".join(parts)


def union_failure(
    names: list[str], failures: list[InvalidValueError], value: Any
) -> InvalidValueError:
    """One report for a value that fit no member of a union.

    Members the value could not even start to match (a string for an object) are summed up in
    one line; otherwise the errors of the closest member, the one with fewest errors, are shown.
    """
    near = [(len(f.errors), i) for i, f in enumerate(failures) if f.expected_what is None]
    if not near:
        wanted = list(dict.fromkeys(f.expected_what for f in failures if f.expected_what))
        return InvalidValueError.expected(" or ".join(wanted), value)
    if len(near) == 1:
        return failures[near[0][1]]
    closest = min(near)[1]
    note = f"matches none of {', '.join(names)}; errors for the closest, {names[closest]}:"
    return InvalidValueError([FieldError((), note), *failures[closest].errors])
