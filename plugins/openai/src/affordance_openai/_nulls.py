"""Where a ``null`` from the model means "absent": the other half of the strict-schema transform.

Strict mode makes every property required, so an optional property the model may leave out
becomes nullable instead. When the original schema did not accept ``null`` there (``flag: bool =
False``), the model's ``null`` must be dropped before validation so the field's default applies.
A :class:`NullPlan` records those places; :func:`drop_introduced_nulls` applies it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "ArrayNulls",
    "NullPlan",
    "ObjectNulls",
    "RefNulls",
    "UnionNulls",
    "drop_introduced_nulls",
    "drop_nulls_in_json",
]


@dataclass(frozen=True, slots=True)
class ObjectNulls:
    """``droppable``: properties whose ``null`` means absent; ``children``: plans below."""

    droppable: frozenset[str]
    children: Mapping[str, Nulls]


@dataclass(frozen=True, slots=True)
class ArrayNulls:
    item: Nulls


@dataclass(frozen=True, slots=True)
class UnionNulls:
    """``anyOf`` branches: an object value takes the branch with exactly its property names
    (strict mode sends every property); an array value takes the first array branch."""

    objects: tuple[tuple[frozenset[str], Nulls], ...]
    array: Nulls | None


@dataclass(frozen=True, slots=True)
class RefNulls:
    name: str


Nulls: TypeAlias = ObjectNulls | ArrayNulls | UnionNulls | RefNulls


@dataclass(frozen=True, slots=True)
class NullPlan:
    root: Nulls
    defs: Mapping[str, Nulls]


def drop_introduced_nulls(value: Any, plan: NullPlan) -> bool:
    """Delete, in place, the nulls ``plan`` marks as "absent" in ``value`` (fresh JSON data).

    Returns whether anything was deleted.
    """
    return _drop(value, plan.root, plan.defs, 0)


def drop_nulls_in_json(text: str, plan: NullPlan) -> str:
    """``text`` with the plan's nulls dropped; unchanged if it is not JSON or nothing dropped."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text  # the executor (or the output parser) reports invalid or too deep JSON
    if not drop_introduced_nulls(data, plan):
        return text
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


_MAX_DEPTH = 64  # JSON from a strict schema is at most 10 objects deep; this bounds $ref loops


def _drop(value: Any, node: Nulls, defs: Mapping[str, Nulls], depth: int) -> bool:
    if depth > _MAX_DEPTH:
        return False
    if isinstance(node, RefNulls):
        target = defs.get(node.name)
        return target is not None and _drop(value, target, defs, depth + 1)
    if isinstance(node, ObjectNulls):
        if not isinstance(value, dict):
            return False
        changed = False
        for key in node.droppable:
            if key in value and value[key] is None:
                del value[key]
                changed = True
        for key, child in node.children.items():
            if key in value and _drop(value[key], child, defs, depth + 1):
                changed = True
        return changed
    if isinstance(node, ArrayNulls):
        if not isinstance(value, list):
            return False
        changed = False
        for item in value:
            if _drop(item, node.item, defs, depth + 1):
                changed = True
        return changed
    if isinstance(value, dict):
        keys = value.keys()
        for names, branch in node.objects:
            if names == keys:
                return _drop(value, branch, defs, depth + 1)
        return False
    if isinstance(value, list) and node.array is not None:
        return _drop(value, node.array, defs, depth + 1)
    return False
