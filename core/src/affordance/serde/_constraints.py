"""Field constraints read from `field(metadata=...)` or `Annotated[X, {...}]` dicts.

One value object serves `parse` (checks) and `schema` (JSON Schema keywords), so what is
enforced and what is advertised to the model can never drift apart.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from decimal import Decimal
from typing import Any

from affordance._frozen import frozen
from affordance.serde._errors import short_repr

__all__ = ["CONSTRAINT_KEYS", "Constraints", "constraint_checker", "constraints_from"]

CONSTRAINT_KEYS = frozenset(
    {"description", "ge", "gt", "le", "lt", "min_length", "max_length", "pattern"}
)

Number = int | float | Decimal
Check = Callable[[Any], "str | None"]

_BOUND_KEYS = ("ge", "gt", "le", "lt")
_LENGTH_KEYS = ("min_length", "max_length")
_SIZED = (str, list, tuple, set, frozenset, dict)


@frozen
class Constraints:
    """What a value must satisfy beyond its type; `description` only documents it."""

    description: str | None = None
    ge: Number | None = None
    gt: Number | None = None
    le: Number | None = None
    lt: Number | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None

    @property
    def has_bounds(self) -> bool:
        return any(getattr(self, key) is not None for key in _BOUND_KEYS)

    @property
    def has_lengths(self) -> bool:
        return self.min_length is not None or self.max_length is not None

    @property
    def checks_values(self) -> bool:
        """Whether anything is enforced (a lone description is not)."""
        return self.has_bounds or self.has_lengths or self.pattern is not None

    def merged(self, other: Constraints) -> Constraints:
        """These constraints with every key that `other` sets taken from `other`."""
        changes = {
            f.name: getattr(other, f.name)
            for f in fields(other)
            if getattr(other, f.name) is not None
        }
        return replace(self, **changes) if changes else self


def constraints_from(metadata: Mapping[Any, Any], where: str) -> Constraints:
    """Read the constraint keys of `metadata`, ignoring others; `where` names it in errors."""
    found: dict[str, Any] = {}
    for key in CONSTRAINT_KEYS.intersection(metadata):
        value = metadata[key]
        if value is None:
            continue
        if key == "description" or key == "pattern":
            if not isinstance(value, str):
                raise TypeError(f"{where}: metadata {key!r} must be a string, got {value!r}")
            if key == "pattern":
                try:
                    re.compile(value)
                except re.error as exc:
                    raise TypeError(f"{where}: metadata 'pattern' is invalid: {exc}") from None
        elif key in _LENGTH_KEYS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise TypeError(
                    f"{where}: metadata {key!r} must be a non-negative int, got {value!r}"
                )
        elif not isinstance(value, int | float | Decimal) or isinstance(value, bool):
            raise TypeError(f"{where}: metadata {key!r} must be a number, got {value!r}")
        found[key] = value
    return Constraints(**found)


def constraint_checker(constraints: Constraints) -> Callable[[Any], list[str] | None]:
    """A function listing how a converted value breaks `constraints`, or None if it does not."""
    checks: list[Check] = []
    c = constraints
    if c.ge is not None:
        checks.append(_bound(operator.ge, c.ge, "must be at least"))
    if c.gt is not None:
        checks.append(_bound(operator.gt, c.gt, "must be greater than"))
    if c.le is not None:
        checks.append(_bound(operator.le, c.le, "must be at most"))
    if c.lt is not None:
        checks.append(_bound(operator.lt, c.lt, "must be less than"))
    if c.min_length is not None:
        checks.append(_length(operator.ge, c.min_length, "at least"))
    if c.max_length is not None:
        checks.append(_length(operator.le, c.max_length, "at most"))
    if c.pattern is not None:
        checks.append(_pattern(c.pattern))

    if len(checks) == 1:
        (only,) = checks

        def check_one(value: Any) -> list[str] | None:
            message = only(value)
            return None if message is None else [message]

        return check_one

    def check_all(value: Any) -> list[str] | None:
        problems: list[str] | None = None
        for check in checks:
            message = check(value)
            if message is not None:
                problems = [*(problems or ()), message]
        return problems

    return check_all


def _bound(compare: Callable[[Any, Any], bool], bound: Number, requirement: str) -> Check:
    def check(value: Any) -> str | None:
        is_number = isinstance(value, int | float | Decimal) and not isinstance(value, bool)
        if is_number and not compare(value, bound):
            return f"{requirement} {bound}, got {short_repr(value)}"
        return None

    return check


def _length(compare: Callable[[int, int], bool], bound: int, relation: str) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, _SIZED) and not compare(len(value), bound):
            unit = "character" if isinstance(value, str) else "item"
            plural = "" if bound == 1 else "s"
            return f"must have {relation} {bound} {unit}{plural}, got {len(value)}"
        return None

    return check


def _pattern(pattern: str) -> Check:
    search = re.compile(pattern).search

    def check(value: Any) -> str | None:
        if isinstance(value, str) and search(value) is None:
            return f"must match the pattern {pattern!r}, got {short_repr(value)}"
        return None

    return check
