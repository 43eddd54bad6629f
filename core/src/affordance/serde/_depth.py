"""The nesting limit for JSON-like data, and the check that enforces it without recursing.

Data from a model is hostile input: 2 KB of `[[[[...]]]]` is enough to exhaust Python's
recursion limit in any recursive walk, `json.loads`, `repr` and `json.dumps` included. Real
tool arguments and results follow a schema and are shallow, so serde refuses anything nested
deeper than `MAX_DEPTH` before it starts recursing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "exceeds_depth", "too_deep_message"]

MAX_DEPTH = 64
"""How many objects/arrays may enclose a value (`{"a": [1]}` is 2 deep).

A schema written by hand is rarely more than ten levels deep; 64 leaves room for recursive
types (trees, outlines) and for `Any` fields holding documents. It also keeps every recursive
walk over accepted data — `parse` spends up to five frames a level on a recursive dataclass,
`dump` two or three — well inside Python's default recursion limit of 1,000, even when the
caller's own stack is a few hundred frames deep.
"""

_SCALARS = frozenset({str, int, float, bool, type(None)})


def too_deep_message(limit: int = MAX_DEPTH) -> str:
    return f"nested deeper than {limit} levels"


def exceeds_depth(data: object, limit: int = MAX_DEPTH) -> bool:
    """Whether more than `limit` containers (mappings, lists, tuples, sets) enclose a value.

    Iterative, so it is safe on data of any depth; it visits each container once.
    """
    kind = type(data)
    if kind in _SCALARS:
        return False
    if kind is dict:  # the usual case, an object of scalars: no walk needed
        for value in data.values():  # type: ignore[attr-defined]
            if type(value) not in _SCALARS:
                break
        else:
            return limit < 1
    pending: list[tuple[Any, int]] = [(data, 1)]
    push, pop = pending.append, pending.pop
    while pending:
        container, depth = pop()
        if depth > limit:
            return True
        kind = type(container)
        items = container.values() if kind is dict else container if kind is list else None
        if items is None:
            items = _children(container)
            if items is None:
                continue
        depth += 1
        for child in items:
            kind = type(child)
            if kind in _SCALARS:
                continue
            if kind is dict or kind is list or _children(child) is not None:
                push((child, depth))
    return False


def _children(value: object) -> Any:
    """The values a container holds, or None for anything that is not a container."""
    kind = type(value)
    if kind is dict:
        return value.values()  # type: ignore[attr-defined]
    if kind is list or kind is tuple:
        return value
    if kind in _SCALARS or isinstance(value, str | bytes):
        return None
    if isinstance(value, Mapping):
        return value.values()
    if isinstance(value, list | tuple | set | frozenset):
        return value
    return None
