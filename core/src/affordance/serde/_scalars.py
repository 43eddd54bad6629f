"""Converters for leaf values: JSON scalars to Python scalars, enums and literals.

Strict because the data comes from a model: `"3"` is not silently an int and `true` is not 1.
The only coercions are lossless ones (int → float, 3.0 → 3, ISO strings → dates).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import sys
import uuid
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from enum import Enum
from typing import Any

from affordance.serde._errors import InvalidValueError, short_repr

__all__ = [
    "SCALAR_CONVERTERS",
    "Converter",
    "choices_text",
    "enum_converter",
    "literal_converter",
    "pass_through",
    "to_none",
]

Converter = Callable[[Any], Any]


def to_bool(value: Any) -> bool:
    if value is True or value is False:
        return value
    raise InvalidValueError.expected("a boolean", value)


def to_int(value: Any) -> int:
    kind = type(value)
    if kind is int:
        return value  # type: ignore[no-any-return]
    if kind is float and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)  # an int subclass such as an IntEnum member
    raise InvalidValueError.expected("an integer", value)


def to_float(value: Any) -> float:
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise InvalidValueError.expected("a number within float range", value) from None
    raise InvalidValueError.expected("a number", value)


def to_str(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise InvalidValueError.expected("a string", value)


def to_decimal(value: Any) -> Decimal:
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, str):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise InvalidValueError.expected("a decimal number", value) from None
    elif isinstance(value, int) and not isinstance(value, bool):
        result = Decimal(value)
    elif isinstance(value, float):
        # Through the shortest repr: 0.1 stays 0.1, not 0.1000000000000000055511151231257827…
        result = Decimal(repr(value))
    else:
        raise InvalidValueError.expected("a decimal number or a numeric string", value)
    if not result.is_finite():
        raise InvalidValueError.expected("a finite decimal number", value)
    return result


if sys.version_info >= (3, 11):
    _datetime_from_iso = datetime.datetime.fromisoformat
    _time_from_iso = datetime.time.fromisoformat
else:  # 3.10's fromisoformat() rejects the "Z" suffix that most JSON producers write

    def _utc(text: str) -> str:
        return text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text

    def _datetime_from_iso(text: str) -> datetime.datetime:
        return datetime.datetime.fromisoformat(_utc(text))

    def _time_from_iso(text: str) -> datetime.time:
        return datetime.time.fromisoformat(_utc(text))


def to_datetime(value: Any) -> datetime.datetime:
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str):
        try:
            return _datetime_from_iso(value)
        except ValueError:
            pass
    raise InvalidValueError.expected("an ISO 8601 date-time string", value)


def to_date(value: Any) -> datetime.date:
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise InvalidValueError.expected("an ISO 8601 date string (YYYY-MM-DD)", value)


def to_time(value: Any) -> datetime.time:
    if isinstance(value, datetime.time):
        return value
    if isinstance(value, str):
        try:
            return _time_from_iso(value)
        except ValueError:
            pass
    raise InvalidValueError.expected("an ISO 8601 time string", value)


def to_uuid(value: Any) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    if isinstance(value, str):
        try:
            return uuid.UUID(value)
        except ValueError:
            pass
    raise InvalidValueError.expected("a UUID string", value)


def to_bytes(value: Any) -> bytes:
    """Bytes as they are, or their base64 text (how they travel in JSON)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            pass
    raise InvalidValueError.expected("base64 text", value)


SCALAR_CONVERTERS: dict[type, Callable[[Any], Any]] = {
    bool: to_bool,
    int: to_int,
    float: to_float,
    str: to_str,
    Decimal: to_decimal,
    datetime.datetime: to_datetime,
    datetime.date: to_date,
    datetime.time: to_time,
    uuid.UUID: to_uuid,
    bytes: to_bytes,
}


def pass_through(value: Any) -> Any:
    return value


def to_none(value: Any) -> None:
    if value is not None:
        raise InvalidValueError.expected("null", value)


def literal_converter(values: tuple[Any, ...]) -> Converter:
    """A converter accepting exactly `values` (an enum member also by its value)."""
    # Keyed by (type, value) so that True does not match Literal[1], nor 1.0 Literal[1].
    table: dict[tuple[type, Any], Any] = {}
    for literal in values:
        table[(type(literal), literal)] = literal
        if isinstance(literal, Enum):
            table.setdefault((type(literal.value), literal.value), literal)
    choices = choices_text(
        literal.value if isinstance(literal, Enum) else literal for literal in values
    )

    def convert(value: Any) -> Any:
        try:
            return table[(type(value), value)]
        except (KeyError, TypeError):
            raise InvalidValueError.expected(choices, value) from None

    return convert


def enum_converter(cls: type[Enum]) -> Converter:
    """A converter to members of `cls`, by value or, failing that, by name."""
    by_value: dict[tuple[type, Any], Enum] = {}
    for member in cls:
        with contextlib.suppress(TypeError):  # an unhashable value still matches by name
            by_value.setdefault((type(member.value), member.value), member)
    by_name = dict(cls.__members__)
    choices = choices_text(member.value for member in cls)

    def convert(value: Any) -> Enum:
        if isinstance(value, cls):
            return value
        try:
            return by_value[(type(value), value)]
        except (KeyError, TypeError):
            pass
        if isinstance(value, str) and value in by_name:
            return by_name[value]
        raise InvalidValueError.expected(choices, value)

    return convert


def choices_text(values: Any) -> str:
    return "one of " + ", ".join(short_repr(value) for value in values)
