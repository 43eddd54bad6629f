"""OpenAI's strict JSON Schema: make a schema strict when that keeps its meaning, else say why not.

Strict mode (function ``strict: true``, ``json_schema`` ``strict: true``) constrains decoding to
the schema but accepts only a subset of JSON Schema. The transform mirrors the rules of the SDK's
``to_strict_json_schema``: every object gets ``additionalProperties: false``; ``required`` lists
every property and an optional property becomes a union with ``null`` (a :class:`NullPlan` says
where that ``null`` means "absent"); ``default`` is dropped; a one-item ``allOf`` is merged; a
``$ref`` with sibling keywords is inlined. A schema using anything outside the subset (open
objects and mappings, tuples, ``uniqueItems``, string lengths, unknown keywords or formats, more
than 10 levels or 5000 properties) is sent as it is with ``strict: false``.

The input schema is never modified: it is typically the cached schema of a params type. The
traversal is core's ``SchemaWalk`` (``specs/PLUGINS.md``, "Tool schemas"); here are the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from affordance.adapters import (
    SchemaPath,
    SchemaRefusedError,
    SchemaWalk,
    schema_pointer,
    schema_types,
)
from affordance_openai._nulls import (
    ArrayNulls,
    NullPlan,
    Nulls,
    ObjectNulls,
    RefNulls,
    UnionNulls,
)

__all__ = ["StrictSchema", "strict_schema"]

_STRUCTURE = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "allOf",
        "$ref",
        "enum",
        "const",
        "description",
        "title",
    }
)
_CONSTRAINTS = frozenset(
    {
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
_SUPPORTED = _STRUCTURE | _CONSTRAINTS
_DROPPED = frozenset({"default", "$schema"})
_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_MAX_OBJECT_DEPTH = 10
_MAX_PROPERTIES = 5000
_MAX_ENUM_VALUES = 1000
_NULL: Mapping[str, Any] = {"type": "null"}
_Rewritten = tuple[dict[str, Any], Nulls | None]
_at = schema_pointer  # where a reason points: "#/properties/a/items"


@dataclass(frozen=True, slots=True)
class StrictSchema:
    """What to send: ``schema`` with ``strict``; ``nulls`` is set when the model's ``null``
    must be dropped somewhere; ``reason`` says why a schema is not strict."""

    schema: Mapping[str, Any]
    strict: bool
    nulls: NullPlan | None = None
    reason: str | None = None


def strict_schema(schema: Mapping[str, Any]) -> StrictSchema:
    """The strict form of ``schema`` if it has one, else ``schema`` itself, not strict."""
    try:
        return _StrictRules(schema).run()
    except SchemaRefusedError as why:
        return StrictSchema(schema, strict=False, reason=why.reason)


class _StrictRules:
    """Rewrites each subschema; the null plan of each (if any) waits in ``plans`` by path."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.walk = SchemaWalk(root, self)
        self.defs_key = "$defs" if "$defs" in root else "definitions"
        self.properties = 0
        self.enum_values = 0
        self.depth = 0  # objects around the subschema being rewritten
        self.plans: dict[SchemaPath, Nulls] = {}

    def run(self) -> StrictSchema:
        root = self.walk.root
        if root.get("type") != "object" or "anyOf" in root or "$ref" in root:
            raise SchemaRefusedError("the root is not a plain object")
        raw_defs = root.get(self.defs_key, {})
        if not isinstance(raw_defs, Mapping):
            raise SchemaRefusedError(f"{self.defs_key} is not an object")
        defs = self.walk.keyword(self.defs_key, raw_defs, ())
        plans = ((name, self.plans.pop((self.defs_key, name), None)) for name in defs)
        def_plans = {name: plan for name, plan in plans if plan is not None}
        body = {k: v for k, v in root.items() if k not in ("$defs", "definitions")}
        schema, root_plan = self.node(body, ())
        if defs:
            schema[self.defs_key] = defs
        nulls = None
        if root_plan is not None and _effective(root_plan, def_plans):
            nulls = NullPlan(root_plan, def_plans)
        return StrictSchema(schema, strict=True, nulls=nulls)

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> dict[str, Any]:
        out, plan = self.node(node, path)
        if plan is not None:
            self.plans[path] = plan
        return out

    def child(self, schema: Any, path: SchemaPath) -> _Rewritten:
        out: dict[str, Any] = self.walk.rewrite(schema, path)
        return out, self.plans.pop(path, None)

    def node(self, schema: Any, path: SchemaPath) -> _Rewritten:
        if not isinstance(schema, Mapping) or not schema:
            raise SchemaRefusedError(f"{_at(path)} accepts any value")
        for key in schema:
            if key not in _SUPPORTED and key not in _DROPPED:
                raise SchemaRefusedError(f"{_at(path)} uses {key!r}")
        if "$ref" in schema:
            return self.ref(schema, path)
        if "allOf" in schema:
            return self.all_of(schema, path)
        out = {k: v for k, v in schema.items() if k not in _DROPPED}
        if "format" in out and out["format"] not in _FORMATS:
            raise SchemaRefusedError(f"{_at(path)} uses format {out['format']!r}")
        if "enum" in out:
            self.enum_values += len(out["enum"])
            if self.enum_values > _MAX_ENUM_VALUES:
                raise SchemaRefusedError(f"more than {_MAX_ENUM_VALUES} enum values")
        if "anyOf" in out:
            return self.any_of(out, path)
        types = schema_types(out)
        plan: Nulls | None = None
        if "object" in types:
            plan = self.object(out, path)
        elif "properties" in out or "additionalProperties" in out or "required" in out:
            raise SchemaRefusedError(f"{_at(path)} has object keywords without type object")
        if "array" in types:
            if "items" not in out:
                raise SchemaRefusedError(f"{_at(path)} is an array of any value")
            out["items"], item_plan = self.child(out["items"], (*path, "items"))
            plan = ArrayNulls(item_plan) if item_plan is not None else plan
        elif "items" in out:
            raise SchemaRefusedError(f"{_at(path)} has items without type array")
        if not types and "enum" not in out and "const" not in out:
            raise SchemaRefusedError(f"{_at(path)} has no type")
        return out, plan

    def object(self, out: dict[str, Any], path: SchemaPath) -> Nulls | None:
        if self.depth >= _MAX_OBJECT_DEPTH:
            raise SchemaRefusedError(f"objects nest deeper than {_MAX_OBJECT_DEPTH} levels")
        extra = out.get("additionalProperties")
        # Absent, it means "open"; closing is only safe where properties are listed (pydantic
        # models, which ignore extra keys anyway: the SDK closes them the same way).
        if extra is not False and (extra is not None or "properties" not in out):
            raise SchemaRefusedError(f"{_at(path)} is an open object (a mapping)")
        properties = out.get("properties", {})
        if not isinstance(properties, Mapping):
            raise SchemaRefusedError(f"{_at(path)}/properties is not an object")
        self.properties += len(properties)
        if self.properties > _MAX_PROPERTIES:
            raise SchemaRefusedError(f"more than {_MAX_PROPERTIES} properties")
        required = set(out.get("required", ()))
        new_properties: dict[str, Any] = {}
        droppable: set[str] = set()
        children: dict[str, Nulls] = {}
        self.depth += 1
        for name, value in properties.items():
            prop, plan = self.child(value, (*path, "properties", name))
            if name not in required and not _accepts_null(prop):
                prop = _nullable(prop)
                droppable.add(name)
            new_properties[name] = prop
            if plan is not None:
                children[name] = plan
        self.depth -= 1
        out["properties"] = new_properties
        out["required"] = list(new_properties)
        out["additionalProperties"] = False
        if not droppable and not children:
            return None
        return ObjectNulls(frozenset(droppable), children)

    def any_of(self, out: dict[str, Any], path: SchemaPath) -> _Rewritten:
        branches = out["anyOf"]
        if not isinstance(branches, list) or not branches:
            raise SchemaRefusedError(f"{_at(path)}/anyOf is not a non-empty list")
        if set(out) - {"anyOf", "description", "title"}:
            raise SchemaRefusedError(f"{_at(path)} mixes anyOf with other keywords")
        new_branches: list[dict[str, Any]] = []
        objects: list[tuple[frozenset[str], Nulls]] = []
        array: Nulls | None = None
        for index, branch in enumerate(branches):
            new, plan = self.child(branch, (*path, "anyOf", index))
            new_branches.append(new)
            if plan is None:
                continue
            target = self.definition(plan.name) if isinstance(plan, RefNulls) else new
            if "object" in schema_types(target):
                objects.append((frozenset(target.get("properties", {})), plan))
            elif "array" in schema_types(target) and array is None:
                array = plan
        out["anyOf"] = new_branches
        if not objects and array is None:
            return out, None
        return out, UnionNulls(tuple(objects), array)

    def ref(self, schema: Mapping[str, Any], path: SchemaPath) -> _Rewritten:
        ref = schema["$ref"]
        siblings = {k: v for k, v in schema.items() if k != "$ref" and k not in _DROPPED}
        prefix = f"#/{self.defs_key}/"
        if not isinstance(ref, str) or not ref.startswith(prefix):
            raise SchemaRefusedError(f"{_at(path)} refers to {ref!r}")
        name = ref[len(prefix) :]
        target = self.definition(name)
        if not siblings:
            return {"$ref": ref}, RefNulls(name)
        if "$ref" in target or self.walk.is_inlining(ref):
            raise SchemaRefusedError(f"{_at(path)} refers to {name!r} with siblings, recursively")
        with self.walk.inlining(ref):
            return self.node({**target, **siblings}, path)

    def definition(self, name: str) -> Mapping[str, Any]:
        target = self.walk.definition(f"#/{self.defs_key}/{name}")
        if not isinstance(target, Mapping):
            raise SchemaRefusedError(f"no definition {name!r}")
        return target

    def all_of(self, schema: Mapping[str, Any], path: SchemaPath) -> _Rewritten:
        parts = schema["allOf"]
        if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], Mapping):
            raise SchemaRefusedError(f"{_at(path)} uses allOf with several schemas")
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        return self.node({**parts[0], **rest}, path)


def _accepts_null(schema: Mapping[str, Any]) -> bool:
    if "null" in schema_types(schema):
        return True
    if "anyOf" in schema:
        return any(_accepts_null(branch) for branch in schema["anyOf"])
    if "enum" in schema and "type" not in schema:
        return None in schema["enum"]
    return "const" in schema and schema["const"] is None


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``: a type list for scalars, an ``anyOf`` otherwise."""
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], dict(_NULL)]}
    types = schema_types(schema)
    if types and "const" not in schema and not {"object", "array"} & set(types):
        nullable = {**schema, "type": [*types, "null"]}
        if "enum" in schema:
            nullable["enum"] = [*schema["enum"], None]
        return nullable
    outer: dict[str, Any] = {}
    inner = dict(schema)
    if "description" in inner:
        outer["description"] = inner.pop("description")
    return {"anyOf": [inner, dict(_NULL)], **outer}


def _effective(plan: Nulls, def_plans: Mapping[str, Nulls]) -> bool:
    """Whether applying ``plan`` can drop anything (a ``$ref`` may lead to plans that cannot)."""
    live: set[str] = set()
    changed = True
    while changed:  # fixpoint over definitions, which may refer to each other
        changed = False
        for name, def_plan in def_plans.items():
            if name not in live and _can_drop(def_plan, live):
                live.add(name)
                changed = True
    return _can_drop(plan, live)


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
