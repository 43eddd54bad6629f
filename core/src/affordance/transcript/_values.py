"""A transcript's values, checked both ways: what writing and reading hold each field to.

Strings, booleans and arrays are checked as such; a call's arguments stay the provider's JSON
string or become a copy of its object; provider items and argument objects are copied as JSON
data no deeper than :data:`MAX_DEPTH`. Anything else raises :class:`TranscriptError` at the
field's path, the offending value :func:`described` in a few words whatever its size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from affordance.errors import TranscriptError

__all__ = [
    "MAX_DEPTH",
    "ValuePath",
    "arguments",
    "array",
    "boolean",
    "check_fields",
    "described",
    "json_object",
    "json_value",
    "required",
    "string",
]

MAX_DEPTH = 64
"""The deepest a value inside a message (a provider item, a call's arguments object) may nest,
counted as the objects and arrays that enclose a scalar in it, itself included (as
``affordance.serde.MAX_DEPTH`` counts): ``{"a": [1]}`` is 2 deep."""

ValuePath = tuple[str | int, ...]
"""Where a value is: keys and indices from the document's root."""


def check_fields(
    data: Mapping[Any, Any], allowed: tuple[str, ...], path: ValuePath, what: str
) -> None:
    """Unknown keys are errors: a field this version does not know belongs to a newer one,
    which says so in its ``version`` (see specs/TRANSCRIPT.md, "Versions")."""
    for key in data:
        if key not in allowed:
            raise TranscriptError(
                f"unknown field {described(key)} for {what}; allowed: {', '.join(allowed)}",
                path=path,
            )


def required(data: Mapping[str, Any], key: str, path: ValuePath) -> Any:
    if key not in data:
        raise TranscriptError("missing field", path=(*path, key))
    return data[key]


def string(value: Any, path: ValuePath) -> str:
    if not isinstance(value, str):
        raise TranscriptError(f"expected a string, got {described(value)}", path=path)
    return value


def boolean(value: Any, path: ValuePath) -> bool:
    if not isinstance(value, bool):
        raise TranscriptError(f"expected true or false, got {described(value)}", path=path)
    return value


def array(value: Any, path: ValuePath) -> Sequence[Any]:
    if not isinstance(value, (list, tuple)):
        raise TranscriptError(f"expected an array, got {described(value)}", path=path)
    return value


def arguments(value: Any, path: ValuePath) -> str | dict[str, Any]:
    """A call's arguments: the provider's JSON string as it is, or its object."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return json_object(value, path, 1)
    raise TranscriptError(
        f"expected a string or an object (the call's arguments), got {described(value)}",
        path=path,
    )


def json_object(value: Any, path: ValuePath, depth: int) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TranscriptError(f"expected an object, got {described(value)}", path=path)
    copied: dict[str, Any] = json_value(value, path, depth)
    return copied


def json_value(value: Any, path: ValuePath, depth: int) -> Any:
    """A copy of the JSON-like ``value`` (objects as dicts in their key order, arrays as
    lists), or a :class:`TranscriptError` for anything JSON cannot hold. ``depth`` counts the
    objects and arrays around ``value``, itself included if it is one."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TranscriptError(f"{value!r} is not a JSON number", path=path)
        return value
    if depth > MAX_DEPTH:
        raise TranscriptError(f"nested deeper than {MAX_DEPTH} levels", path=path)
    if isinstance(value, Mapping):
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TranscriptError(
                    f"object keys must be strings, got {described(key)}", path=path
                )
            copied[key] = json_value(item, (*path, key), depth + 1)
        return copied
    if isinstance(value, (list, tuple)):
        return [json_value(item, (*path, i), depth + 1) for i, item in enumerate(value)]
    raise TranscriptError(f"{described(value)} is not JSON data", path=path)


def described(value: Any) -> str:
    """``value`` for an error message: short, whatever its size."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else f"the string {value[:36]!r}..."
    if isinstance(value, (int, float)):
        if isinstance(value, int) and abs(value) >= 2**64:  # its digits would be noise
            return f"a {value.bit_length()}-bit integer"
        return f"the number {value!r}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__qualname__}"
