"""`dump`: typed objects → JSON-compatible data (what `json.dumps` takes as is).

The dumper for each concrete type is chosen once and cached, so dumping a tool result costs a
dict lookup per value rather than a chain of isinstance checks. Every container passes its
depth down, so a value nested deeper than `MAX_DEPTH` is refused before the recursion can
exhaust Python's stack (a handler's result is as untrusted as a model's arguments).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
import types
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from enum import Enum
from typing import Any

from affordance.serde import _pydantic
from affordance.serde._depth import MAX_DEPTH, exceeds_depth, too_deep_message
from affordance.serde._errors import format_path

__all__ = ["dump"]

Dumper = Callable[[Any, bool, int], Any]
"""`(obj, exclude_none, depth)`: `depth` is how many containers enclose `obj`."""

_JSON_SCALARS = frozenset({str, int, float, bool, types.NoneType})
_dumpers: dict[type, Dumper] = {}
"""The dumper for each concrete type met so far."""


class _UnsupportedValueError(Exception):
    """Internal: a value has no JSON form; containers add their key as it propagates."""

    def __init__(self, value: object, role: str = "") -> None:
        super().__init__()
        self.kind = type(value)
        self.role = role
        self.reversed_path: list[str | int] = []


class _TooDeepError(Exception):
    """Internal: a container sits deeper than `MAX_DEPTH`."""


def dump(obj: object, *, exclude_none: bool = False) -> Any:
    """`obj` as JSON-compatible data; `exclude_none` drops None-valued dataclass fields.

    Raises `TypeError` naming the type and the path of the first value with no JSON form, and
    `ValueError` for a value nested deeper than `MAX_DEPTH` levels.
    """
    try:
        return _dump(obj, exclude_none, 0)
    except _TooDeepError:
        raise ValueError(f"cannot dump the value: {too_deep_message(MAX_DEPTH)}") from None
    except _UnsupportedValueError as exc:
        where = format_path(tuple(reversed(exc.reversed_path))) or "the root"
        raise TypeError(
            f"cannot dump {exc.kind.__module__}.{exc.kind.__qualname__}{exc.role} at {where}: "
            "not a dataclass, pydantic model, enum, collection or JSON scalar"
        ) from None


def _dump(obj: Any, exclude_none: bool, depth: int) -> Any:
    kind = type(obj)
    if kind in _JSON_SCALARS:
        return obj
    dumper = _dumpers.get(kind)
    if dumper is None:
        dumper = _dumpers.setdefault(kind, _dumper_for(kind))
    return dumper(obj, exclude_none, depth)


def _enter(depth: int) -> int:
    """The depth of a container's items; refuses a container that is itself too deep."""
    if depth >= MAX_DEPTH:
        raise _TooDeepError
    return depth + 1


def _dumper_for(kind: type) -> Dumper:
    if issubclass(kind, Enum):
        return lambda obj, exclude_none, depth: _dump(obj.value, exclude_none, depth)
    if dataclasses.is_dataclass(kind):
        return _dataclass_dumper(kind)
    if _pydantic.is_model(kind):
        return _dump_model
    if issubclass(kind, datetime.date | datetime.time):
        return lambda obj, exclude_none, depth: obj.isoformat()
    if issubclass(kind, uuid.UUID | Decimal):
        return lambda obj, exclude_none, depth: str(obj)
    if issubclass(kind, bytes):
        return lambda obj, exclude_none, depth: base64.b64encode(obj).decode("ascii")
    if issubclass(kind, list | tuple):
        return _dump_sequence
    if issubclass(kind, set | frozenset):
        return _dump_set
    if issubclass(kind, Mapping):
        return _dump_mapping
    if issubclass(kind, str | int | float):
        return lambda obj, exclude_none, depth: obj  # subclasses of JSON scalars are scalars
    return _unsupported


def _dump_model(obj: Any, exclude_none: bool, depth: int) -> Any:
    """A pydantic model dumps itself; its output is then held to the depth left."""
    data = _pydantic.dump_model(obj, exclude_none)
    if exceeds_depth(data, MAX_DEPTH - depth):
        raise _TooDeepError
    return data


def _dataclass_dumper(cls: type) -> Dumper:
    # Only `init` fields: what `parse` accepts and `schema` advertises, so dumps round-trip.
    names = tuple(field.name for field in dataclasses.fields(cls) if field.init)

    def dump_dataclass(obj: Any, exclude_none: bool, depth: int) -> dict[str, Any]:
        inner = _enter(depth)
        result: dict[str, Any] = {}
        for name in names:
            value = getattr(obj, name)
            if type(value) in _JSON_SCALARS:
                if value is not None or not exclude_none:
                    result[name] = value
                continue
            try:
                result[name] = _dump(value, exclude_none, inner)
            except _UnsupportedValueError as exc:
                exc.reversed_path.append(name)
                raise
        return result

    return dump_dataclass


def _dump_sequence(obj: Any, exclude_none: bool, depth: int) -> list[Any]:
    inner = _enter(depth)
    try:
        return [_dump(item, exclude_none, inner) for item in obj]
    except _UnsupportedValueError as exc:
        exc.reversed_path.append(_failing_index(obj, exclude_none, inner))
        raise


def _dump_set(obj: Any, exclude_none: bool, depth: int) -> list[Any]:
    items = _dump_sequence(obj, exclude_none, depth)
    with contextlib.suppress(TypeError):  # mixed or unorderable items keep iteration order
        items.sort()
    return items


def _failing_index(items: Any, exclude_none: bool, depth: int) -> int:
    for index, item in enumerate(items):
        try:
            _dump(item, exclude_none, depth)
        except _UnsupportedValueError:
            return index
    return -1


def _dump_mapping(obj: Any, exclude_none: bool, depth: int) -> dict[str, Any]:
    inner = _enter(depth)
    result: dict[str, Any] = {}
    for key, value in obj.items():
        name = _dump_key(key)
        try:
            result[name] = _dump(value, exclude_none, inner)
        except _UnsupportedValueError as exc:
            exc.reversed_path.append(name)
            raise
    return result


def _dump_key(key: Any) -> str:
    """An object key as JSON text, the way `json.dumps` would write it."""
    if isinstance(key, Enum):
        key = key.value
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int | float | uuid.UUID | Decimal):
        return str(key)
    if isinstance(key, datetime.date | datetime.time):
        return key.isoformat()
    raise _UnsupportedValueError(key, " as an object key")


def _unsupported(obj: Any, exclude_none: bool, depth: int) -> Any:
    raise _UnsupportedValueError(obj)
