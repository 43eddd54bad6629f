"""The rules that apply a :class:`SchemaDialect` to a schema, over core's :class:`SchemaWalk`.

Written once for every provider: each subschema's keywords are sorted by the dialect's tables
(kept, renamed, moved into ``description``, dropped, refused), and a strict dialect then checks
and rebuilds the node in a fixed order — ``$ref``, ``allOf``, refused keywords, values, literals,
``anyOf``/``oneOf``/``allOf``, ``type``, objects (closed; optional properties nullable), arrays —
so the first reason found is the one a user reads. :func:`convert_schema` is the entry point.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from affordance.adapters._strict_shapes import DEFINITIONS, Rewritten, StrictShapes
from affordance.adapters.schema_dialect import (
    SCHEMA_REASONS,
    ConvertedSchema,
    SchemaDialect,
    change_note,
    is_number,
    literal_text,
    phrase,
)
from affordance.adapters.schema_nulls import NullPlan, Nulls, RefNulls
from affordance.adapters.schema_walk import (
    SchemaPath,
    SchemaRefusedError,
    SchemaWalk,
    copy_json,
    recursive_ref,
)

__all__ = ["DialectRules", "convert_schema"]

_OWNED = frozenset({"anyOf", "oneOf", "allOf", "properties", "additionalProperties", "items"})
"""The subschema keywords a strict dialect rebuilds itself (:mod:`._strict_shapes`)."""


def convert_schema(schema: Mapping[str, Any], dialect: SchemaDialect) -> ConvertedSchema:
    """``schema`` in ``dialect`` (a new dict; ``schema`` is left as it is)."""
    return DialectRules(dialect, schema).convert()


class DialectRules(StrictShapes):
    """``dialect``'s rules over one schema; null plans wait in ``plans`` by path."""

    def __init__(self, dialect: SchemaDialect, root: Any) -> None:
        self.dialect = dialect
        self.walk = SchemaWalk(root, self)
        self.reasons = {**SCHEMA_REASONS, **dialect.reasons}
        self.owned = _OWNED if dialect.strict else frozenset()
        self.plans: dict[SchemaPath, Nulls] = {}
        self.changed: set[str] = set()
        self.dropped: set[str] = set()
        self.depth = self.properties = self.enum_values = 0  # depth: objects around the node

    def convert(self) -> ConvertedSchema:
        """The converted schema; for a strict dialect that refuses it, the input and the reason."""
        d, root = self.dialect, self.walk.root
        out: Any = None  # a lenient dialect's root may be no schema object: then {}
        nulls = None
        try:
            if d.strict:
                out, nulls = self._strict(root)
            else:
                out = self.walk.run()
        except SchemaRefusedError as refused:
            return ConvertedSchema(root, strict=False, reason=refused.reason)
        changed, dropped = tuple(sorted(self.changed)), tuple(sorted(self.dropped))
        note = change_note(d.name, changed, dropped)
        schema = out if isinstance(out, dict) else {}
        return ConvertedSchema(schema, d.strict, None, nulls, changed, dropped, note)

    def _strict(self, root: Any) -> tuple[dict[str, Any], NullPlan | None]:
        d = self.dialect
        one = d.definitions == "last"  # one table, `$defs` first (the `in` also types the root)
        keys = (("$defs",) if "$defs" in root else ("definitions",)) if one else DEFINITIONS
        if d.root_object and (root.get("type") != "object" or "anyOf" in root or "$ref" in root):
            self._refuse("root", ())
        tables: dict[str, Mapping[str, Any]] = {}
        for key in keys:
            found = root.get(key)
            if found is None and not (one and key in root):  # the one table may not be null
                continue
            if not isinstance(found, Mapping):
                self._refuse("definitions", (), key=key)
            tables[key] = found
        cycle = None if d.recursive else recursive_ref(self.walk)
        if cycle is not None:
            self._refuse("recursive", (), name=cycle.rsplit("/", 1)[-1])
        defs = {key: self.walk.keyword(key, table, ()) for key, table in tables.items()}
        out, plan = self._node({k: v for k, v in root.items() if k not in DEFINITIONS}, ())
        if one:
            out.update((key, table) for key, table in defs.items() if table)
        else:
            out = {**defs, **out}
        def_plans = {
            name: found
            for key, table in defs.items()
            for name in table
            if (found := self.plans.pop((key, name), None)) is not None
        }
        return out, NullPlan.of(plan, def_plans)

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> Any:
        out, plan = self._node(node, path)
        if plan is not None:
            self.plans[path] = plan
        return out

    def _node(self, node: Any, path: SchemaPath) -> Rewritten:
        d = self.dialect
        if not isinstance(node, Mapping):
            if not d.strict:
                return node, None
            self._refuse("not_schema", path)
        if not d.strict:
            return self._lenient(
                {k: v for k, v in node.items() if k not in d.dropped}, node, path
            ), None
        if not node:
            self._refuse("empty", path)
        if d.unlisted == "refuse":
            for key in node:
                if not self._listed(key):
                    self._refuse("unlisted", path, key=key)
        rest = {k: v for k, v in node.items() if k not in d.dropped}
        if "$ref" in rest:
            return self._ref(rest, path)
        if "allOf" in rest and d.all_of == "merge":
            parts = rest["allOf"]
            if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], Mapping):
                self._refuse("all_of", path)
            return self._node({**parts[0], **{k: v for k, v in node.items() if k != "allOf"}}, path)
        refused = sorted(d.refused & rest.keys())
        if refused:
            self._refuse("refused", path, keys=", ".join(refused))
        self._check_values(rest, path)
        kind = rest.get("type")
        out, moved = self._sort(rest, path, kind if isinstance(kind, list) else [kind])
        plan = self._combinators(rest, out, path)
        types = self._types(rest, path)
        if "object" in types:
            plan = self._object(rest, out, path)
        self._without(rest, types, ("object",), path)
        if "array" in types:
            plan = self._array(rest, out, path) or plan
        self._without(rest, types, tuple(set(d.typed.values()) - {"object"}), path)
        if not types and not {"enum", "const", "anyOf", "allOf"} & out.keys():
            self._refuse("untyped", path)
        return self._finish(out, moved, []), plan

    def _listed(self, key: str) -> bool:
        d = self.dialect
        tables = (d.kept, d.dropped, d.described, d.refused, d.renamed, d.restricted)
        return any(key in table for table in tables) or bool(
            d.kept_prefix and key.startswith(d.kept_prefix)
        )

    def _keeps(self, key: str, value: Any, types: list[Any]) -> bool:
        d = self.dialect
        if key not in d.kept and not (d.kept_prefix and key.startswith(d.kept_prefix)):
            return False
        if d.unlisted == "refuse":  # refused later, in the order of the checks
            return True
        kind = d.typed.get(key)
        if kind is not None and kind not in types:
            return False
        allowed = d.restricted.get(key)
        return allowed is None or value in allowed

    def _sort(
        self, rest: Mapping[str, Any], path: SchemaPath, types: list[Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``rest`` by the tables, in its order: what is sent, and what moves to the description."""
        d = self.dialect
        out: dict[str, Any] = {}
        moved: dict[str, Any] = {}
        for key, value in rest.items():
            if key in DEFINITIONS and d.definitions == "in_place" and isinstance(value, Mapping):
                out[key] = self.walk.keyword(key, value, path)
            elif key in self.owned and (key in d.renamed or self._keeps(key, value, types)):
                out[key] = value  # rebuilt below, in place
            elif self._keeps(key, value, types):
                walked = self.walk.subschemas({key: value}, path)
                out[key] = walked[key] if key in walked else copy_json(value)
            elif key in d.renamed:
                self.changed.add(key)
                renamed = copy_json(value)
                out[d.renamed[key]] = (
                    [renamed] if (key, d.renamed[key]) == ("const", "enum") else renamed
                )
            elif (
                key == "allOf"
                and d.all_of == "any_of"
                and isinstance(value, list)
                and len(value) == 1
            ):
                self.changed.add(key)
                out.setdefault("anyOf", []).append(self.walk.rewrite(value[0], (*path, key, 0)))
            elif (
                d.inclusive_bounds
                and key in ("exclusiveMinimum", "exclusiveMaximum")
                and is_number(value)
            ):
                continue  # after the others: see _bounds
            elif key in d.described or d.unlisted == "describe":
                self.changed.add(key)
                moved[key] = value
            else:
                self.dropped.add(key)
        return out, moved

    def _lenient(
        self, rest: Mapping[str, Any], node: Mapping[str, Any], path: SchemaPath
    ) -> dict[str, Any]:
        """A node a lenient dialect reads: nothing refused; what it cannot send is changed."""
        d = self.dialect
        out, moved = self._sort(rest, path, [rest.get("type")])
        hints: list[str] = []
        if d.inclusive_bounds:
            self._bounds(node, out, hints)
        values = out.get("enum")
        if d.literal is not None and isinstance(values, list) and not all(map(d.literal, values)):
            self.changed.add("enum")
            del out["enum"]
            if len(values) == 1:
                hints.append(f"must be {literal_text(values[0])}")
            elif not all(isinstance(v, bool) for v in values) or len(set(values)) < 2:
                hints.append(f"one of {', '.join(literal_text(v) for v in values)}")
        prefix = d.kept_prefix or "$"
        if (
            d.ref_siblings == "any_of"
            and "$ref" in out
            and not all(k.startswith(prefix) for k in out)
        ):
            self.changed.add("$ref")
            reference = {"$ref": out.pop("$ref")}
            if "anyOf" in out:
                self.dropped.add("anyOf beside $ref")
            out["anyOf"] = [reference]
        return self._finish(out, moved, hints)

    def _bounds(self, node: Mapping[str, Any], out: dict[str, Any], hints: list[str]) -> None:
        """Each exclusive bound as the inclusive one (exact for integers), never looser."""
        for key, value in node.items():
            if key not in ("exclusiveMinimum", "exclusiveMaximum") or not is_number(value):
                continue
            self.changed.add(key)
            lower = key == "exclusiveMinimum"
            target = "minimum" if lower else "maximum"
            bound: Any = value
            if node.get("type") == "integer" and isinstance(value, int):
                bound = value + 1 if lower else value - 1
            else:
                hints.append(f"{'greater' if lower else 'less'} than {literal_text(value)}")
            current: Any = out.get(target)
            if is_number(current):
                bound = max(bound, current) if lower else min(bound, current)
            out[target] = bound

    def _finish(
        self, out: dict[str, Any], moved: dict[str, Any], hints: list[str]
    ) -> dict[str, Any]:
        """``out`` in the dialect's order, the moved keywords stated in its description."""
        d = self.dialect
        if d.order:
            out = {**{k: out[k] for k in d.order if k in out}, **out}
        if d.description == "json" and moved:
            text = json.dumps(moved, ensure_ascii=False, sort_keys=True, default=str)
            described = out.get("description")
            out["description"] = f"{described}\n\n{text}" if described else text
        elif d.description == "phrases" and (moved or hints):
            phrases = [phrase(key, value) for key, value in moved.items()]
            hint = f"({'; '.join([*phrases, *hints])})"
            described = out.get("description")
            out["description"] = f"{described} {hint}" if isinstance(described, str) else hint
        return out

    def _ref(self, rest: dict[str, Any], path: SchemaPath) -> Rewritten:
        """A ``$ref``: kept alone; beside other keywords, the definition inlined under them."""
        ref = rest["$ref"]
        siblings = {k: v for k, v in rest.items() if k != "$ref"}
        prefixes = tuple(f"#/{key}/" for key in self._definition_keys())
        if not isinstance(ref, str) or not ref.startswith(prefixes):
            self._refuse("bad_ref", path, ref=ref)
        name = ref.split("/", 2)[2]
        target = self.walk.definition(ref)
        if target is None:
            self._refuse("missing_ref", path, ref=ref, name=name)
        planned = self.dialect.optional == "nullable"  # a null plan reads the definition too
        if not isinstance(target, Mapping) and (siblings or planned):
            self._refuse("ref_not_schema", path, ref=ref, name=name)
        if not siblings:
            return {"$ref": ref}, RefNulls(name) if planned else None
        # A dialect that sends recursion as $refs must not inline forever (an alias may loop).
        if self.dialect.recursive and ("$ref" in target or self.walk.is_inlining(ref)):
            self._refuse("ref_cycle", path, ref=ref, name=name)
        merged = {**target, **siblings}
        if self.dialect.unlisted != "refuse":  # the copy leaves a nested table out (else refused)
            merged = {k: v for k, v in merged.items() if k not in DEFINITIONS}
        with self.walk.inlining(ref):
            return self._node(merged, path or ("#",))
