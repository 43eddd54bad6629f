"""Where a ``null`` from the model means "absent": the other half of the nullable-optional rule.

A dialect whose strict mode makes every property required (OpenAI's) turns an optional property
the model may leave out into a nullable one. When the original schema did not accept ``null``
there (``flag: bool = False``), the model's ``null`` must be dropped before validation so the
field's default applies. A :class:`NullPlan` records those places as the rules rewrite the schema
(:mod:`.schema_rules`); :func:`drop_introduced_nulls` applies it to the arguments read back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeAlias

from affordance._frozen import frozen
from affordance.adapters.schema_walk import schema_types

__all__ = [
    "ArrayNulls",
    "NullPlan",
    "Nulls",
    "ObjectNulls",
    "RefNulls",
    "UnionNulls",
    "accepts_null",
    "drop_introduced_nulls",
    "drop_nulls_in_json",
    "nullable",
]


@frozen
class ObjectNulls:
    """``droppable``: properties whose ``null`` means absent; ``children``: plans below."""

    droppable: frozenset[str]
    children: Mapping[str, Nulls]


@frozen
class ArrayNulls:
    item: Nulls


@frozen
class UnionNulls:
    """``anyOf`` branches: an object value takes the branch with exactly its property names
    (strict mode sends every property); an array value takes the first array branch."""

    objects: tuple[tuple[frozenset[str], Nulls], ...]
    array: Nulls | None


@frozen
class RefNulls:
    name: str


Nulls: TypeAlias = ObjectNulls | ArrayNulls | UnionNulls | RefNulls


@frozen
class NullPlan:
    """The root's plan and each definition's (by name), or None when nothing can be dropped."""

    root: Nulls
    defs: Mapping[str, Nulls]

    @classmethod
    def of(cls, root: Nulls | None, defs: Mapping[str, Nulls]) -> NullPlan | None:
        """A plan, when applying it can drop anything (a ``$ref`` may lead to plans that cannot)."""
        if root is None:
            return None
        live: set[str] = set()
        changed = True
        while changed:  # fixpoint over definitions, which may refer to each other
            changed = False
            for name, plan in defs.items():
                if name not in live and _can_drop(plan, live):
                    live.add(name)
                    changed = True
        return cls(root, defs) if _can_drop(root, live) else None

    def normalize(self, arguments: str | Mapping[str, Any]) -> str | dict[str, Any]:
        """The model's arguments (JSON text, or parsed) with the plan's nulls dropped: what a
        serializer's ``normalize_arguments`` returns. A mapping is copied, never changed."""
        if isinstance(arguments, str):
            return drop_nulls_in_json(arguments, self)
        data: dict[str, Any] = json.loads(json.dumps(dict(arguments)))
        drop_introduced_nulls(data, self)
        return data


def _can_drop(plan: Nulls, live: set[str]) -> bool:
    if isinstance(plan, RefNulls):
        return plan.name in live
    if isinstance(plan, ObjectNulls):
        return bool(plan.droppable) or any(_can_drop(c, live) for c in plan.children.values())
    if isinstance(plan, ArrayNulls):
        return _can_drop(plan.item, live)
    return any(_can_drop(p, live) for _, p in plan.objects) or (
        plan.array is not None and _can_drop(plan.array, live)
    )


def accepts_null(schema: Mapping[str, Any]) -> bool:
    """Whether ``schema`` (as rewritten) already accepts ``null``."""
    if "null" in schema_types(schema):
        return True
    if "anyOf" in schema:
        return any(accepts_null(branch) for branch in schema["anyOf"])
    if "enum" in schema and "type" not in schema:
        return None in schema["enum"]
    return "const" in schema and schema["const"] is None


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``: a type list for scalars, an ``anyOf`` otherwise."""
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    types = schema_types(schema)
    if types and "const" not in schema and not {"object", "array"} & set(types):
        widened = {**schema, "type": [*types, "null"]}
        if "enum" in schema:
            widened["enum"] = [*schema["enum"], None]
        return widened
    outer: dict[str, Any] = {}
    inner = dict(schema)
    if "description" in inner:
        outer["description"] = inner.pop("description")
    return {"anyOf": [inner, {"type": "null"}], **outer}


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
