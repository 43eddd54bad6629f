"""What a strict dialect checks and rebuilds in a node, beside its keyword tables.

Values (``format`` lists, the ``enum`` budget, primitive literals), the combinators (``anyOf``,
``oneOf``, ``allOf``), ``type``, closed objects (optional properties made nullable, with their
null plans) and arrays, each refusing with the dialect's reason. :class:`DialectRules` in
:mod:`.schema_rules` runs them in order; they share its state, declared here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from affordance.adapters.schema_dialect import SchemaDialect
from affordance.adapters.schema_nulls import (
    ArrayNulls,
    Nulls,
    ObjectNulls,
    RefNulls,
    UnionNulls,
    accepts_null,
    nullable,
)
from affordance.adapters.schema_walk import (
    SchemaPath,
    SchemaRefusedError,
    SchemaWalk,
    schema_types,
)

__all__ = ["DEFINITIONS", "Rewritten", "StrictShapes"]

DEFINITIONS = ("$defs", "definitions")
_COMBINATORS = ("anyOf", "oneOf", "allOf")
Rewritten = tuple[Any, Nulls | None]
"""A rewritten subschema and its null plan (if its ``null`` may mean absent somewhere)."""


class StrictShapes:
    """The strict checks of :class:`~affordance.adapters.schema_rules.DialectRules`."""

    dialect: SchemaDialect
    walk: SchemaWalk
    reasons: dict[str, str]
    plans: dict[SchemaPath, Nulls]
    depth: int
    properties: int
    enum_values: int

    def _child(self, node: Any, path: SchemaPath) -> Rewritten:
        out = self.walk.rewrite(node, path)
        return out, self.plans.pop(path, None)

    def _refuse(self, check: str, path: SchemaPath, **fields: Any) -> NoReturn:
        at = self.dialect.where(path)
        raise SchemaRefusedError(self.reasons[check].format(at=at, **fields))

    def _check_values(self, rest: dict[str, Any], path: SchemaPath) -> None:
        """Restricted values (a refusing dialect), the ``enum`` budget and literal values."""
        d = self.dialect
        if d.unlisted == "refuse":
            for key, allowed in d.restricted.items():
                if key in rest and rest[key] not in allowed:
                    self._refuse("value", path, key=key, value=rest[key])
        if d.max_enum_values is not None and "enum" in rest:
            self.enum_values += len(rest["enum"])
            if self.enum_values > d.max_enum_values:
                self._refuse("enum_count", path, limit=d.max_enum_values)
        if d.literal is not None and "enum" in rest:
            values = rest["enum"]
            if not isinstance(values, list) or not values or not all(map(d.literal, values)):
                self._refuse("enum", path)
        if d.literal is not None and "const" in rest and not d.literal(rest["const"]):
            self._refuse("const", path)

    def _definition_keys(self) -> tuple[str, ...]:
        if self.dialect.definitions != "last":
            return DEFINITIONS
        return ("$defs",) if "$defs" in self.walk.root else ("definitions",)

    def _combinators(
        self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath
    ) -> Nulls | None:
        """``anyOf``, ``oneOf`` and ``allOf`` checked and rebuilt (renamed as the dialect says)."""
        d = self.dialect
        plan: Nulls | None = None
        for key in _COMBINATORS:
            if key not in out:
                continue
            branches = rest[key]
            if not isinstance(branches, list) or not branches:
                self._refuse("combinator", path, key=key)
            target = d.renamed.get(key, key)
            if target != key and target in out:
                self._refuse("combined", path, key=key)
            if (
                d.any_of_alone
                and target == "anyOf"
                and out.keys() - {"anyOf", "description", "title"}
            ):
                self._refuse("mixed", path)
            rewritten = [self._child(b, (*path, key, i)) for i, b in enumerate(branches)]
            converted = [branch for branch, _ in rewritten]
            if key == "allOf":  # inline_refs: this allOf may not hold a $ref
                converted = [self._inline(branch, path) for branch in converted]
            elif d.optional == "nullable":
                plan = self._union(rewritten)
            if target != key:
                del out[key]
            out[target] = converted
        return plan

    def _inline(self, branch: dict[str, Any], path: SchemaPath) -> dict[str, Any]:
        ref = branch.get("$ref")
        if ref is None:
            return branch
        inlined: dict[str, Any] = self.walk.rewrite(self.walk.definition(ref), path or ("#",))
        return inlined

    def _union(self, rewritten: list[Rewritten]) -> Nulls | None:
        objects: list[tuple[frozenset[str], Nulls]] = []
        array: Nulls | None = None
        for branch, plan in rewritten:
            if plan is None:
                continue
            target = branch
            if isinstance(plan, RefNulls):
                target = self.walk.definition(f"#/{self._definition_keys()[0]}/{plan.name}")
            if "object" in schema_types(target):
                objects.append((frozenset(target.get("properties", {})), plan))
            elif "array" in schema_types(target) and array is None:
                array = plan
        return UnionNulls(tuple(objects), array) if objects or array is not None else None

    def _types(self, rest: Mapping[str, Any], path: SchemaPath) -> frozenset[str]:
        known = self.dialect.types
        kind = rest.get("type")
        if known is None or kind is None:
            return frozenset(schema_types(rest))
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) and k in known for k in kinds):
            self._refuse("type", path, type=kind)
        return frozenset(kinds)

    def _object(
        self, rest: Mapping[str, Any], out: dict[str, Any], path: SchemaPath
    ) -> Nulls | None:
        """A closed object: its properties rebuilt; all required and optional ones nullable when
        the dialect says so."""
        d = self.dialect
        if d.max_depth is not None and self.depth >= d.max_depth:
            self._refuse("depth", path, limit=d.max_depth)
        extra = rest.get("additionalProperties")
        listed = d.closes_listed and extra is None and "properties" in rest
        if extra is not False and not listed:
            shape = "a mapping" if isinstance(extra, Mapping) and extra else "an open object"
            self._refuse("open", path, shape=shape)
        properties = rest.get("properties", {})
        if not isinstance(properties, Mapping):
            self._refuse("properties", path)
        self.properties += len(properties)
        if d.max_properties is not None and self.properties > d.max_properties:
            self._refuse("property_count", path, limit=d.max_properties)
        nullable_optional = d.optional == "nullable"
        required = set(rest.get("required", ())) if nullable_optional else set()
        converted: dict[str, Any] = {}
        droppable: set[str] = set()
        children: dict[str, Nulls] = {}
        self.depth += 1
        for name, value in properties.items():
            prop, plan = self._child(value, (*path, "properties", name))
            if nullable_optional and name not in required and not accepts_null(prop):
                prop = nullable(prop)
                droppable.add(name)
            converted[name] = prop
            if plan is not None:
                children[name] = plan
        self.depth -= 1
        out["properties"] = converted
        if nullable_optional:
            out["required"] = list(converted)
        elif "required" in rest:
            out["required"] = list(rest["required"])
        out["additionalProperties"] = False
        return ObjectNulls(frozenset(droppable), children) if droppable or children else None

    def _array(
        self, rest: Mapping[str, Any], out: dict[str, Any], path: SchemaPath
    ) -> Nulls | None:
        if "items" not in rest:
            self._refuse("any_array", path)
        items = rest["items"]
        if not isinstance(items, Mapping) or not items:
            self._refuse("any_items", path)
        out["items"], plan = self._child(items, (*path, "items"))
        return None if plan is None else ArrayNulls(plan)

    def _without(
        self,
        rest: Mapping[str, Any],
        types: frozenset[str],
        kinds: tuple[str, ...],
        path: SchemaPath,
    ) -> None:
        """A refusing dialect refuses a typed keyword on a node without its type."""
        if self.dialect.unlisted != "refuse":
            return
        for kind in sorted(kinds):
            keys = [k for k, t in self.dialect.typed.items() if t == kind and k in rest]
            if keys and kind not in types:
                check = f"without_{kind}" if f"without_{kind}" in self.reasons else "without"
                self._refuse(check, path, key=keys[0], kind=kind)
