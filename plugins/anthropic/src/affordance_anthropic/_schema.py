"""Anthropic's strict JSON Schema: a schema in the subset strict mode accepts, or why not.

Strict tool use (``strict: true``) and JSON outputs (``output_config.format``) constrain sampling
to a grammar compiled from the schema, and accept only part of JSON Schema. The transform follows
the subset of the SDK's ``transform_schema`` (``anthropic.lib._parse._transform``):

- every object is closed (``additionalProperties: false``) and ``required`` stays as given, so no
  field changes meaning (unlike OpenAI, an optional field stays optional);
- ``oneOf`` becomes ``anyOf``; ``anyOf``, ``allOf``, local ``$ref``/``$defs``, primitive ``enum``
  and ``const``, type arrays, string ``format`` from a short list and ``minItems`` 0 or 1 stay;
- any other constraint (``minimum``, ``maxLength``, ``pattern``, ``uniqueItems``, ``default``,
  ...) moves into the ``description`` as JSON, where the model reads it.

Moving a constraint only loosens what sampling enforces; the tool's own validation still applies
every constraint to the arguments, and a violation reaches the model as a failed call, exactly
as in non-strict mode. Where the SDK's transform would change what a schema *means* — an open
object or a mapping (``additionalProperties`` other than false) closed to no keys, a tuple or an
untyped array turned into an array of anything, a value of any type, a recursive schema (the
grammar cannot recurse), keywords that shape the value (``not``, ``if``, ``prefixItems``,
``patternProperties``, ...) — the schema is sent unchanged and not strict, with the reason.

The input schema is never modified: it is typically the cached schema of a params type. The
traversal is core's ``SchemaWalk`` (``specs/PLUGINS.md``, "Tool schemas"); here are the rules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from affordance.adapters import (
    SchemaPath,
    SchemaRefusedError,
    SchemaWalk,
    recursive_ref,
)

__all__ = ["StrictSchema", "StrictSchemaCost", "strict_schema", "strict_schema_cost"]

_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
_KEPT = frozenset({"description", "title"})
_DROPPED = frozenset({"$schema", "$comment"})
_SHAPING = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "prefixItems",
        "patternProperties",
        "propertyNames",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contentSchema",
    }
)
"""Keywords that shape the value itself: without them the schema means something else."""
_REF_PREFIXES = ("#/$defs/", "#/definitions/")


@dataclass(frozen=True, slots=True)
class StrictSchema:
    """What to send: ``schema``, and whether it is strict; ``reason`` says why it is not."""

    schema: Mapping[str, Any]
    strict: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class StrictSchemaCost:
    """What a strict schema spends of a request's budget (see the adapter's spec): its optional
    properties and its properties that are unions (``anyOf`` or a type array)."""

    optional: int = 0
    unions: int = 0


def strict_schema(schema: Mapping[str, Any]) -> StrictSchema:
    """``schema`` in Anthropic's strict subset, or unchanged and not strict, with the reason."""
    walk = _AnthropicRules(schema).walk
    try:
        _check_definitions(walk)
        converted = walk.run()
    except SchemaRefusedError as refused:
        return StrictSchema(schema, strict=False, reason=refused.reason)
    return StrictSchema(converted, strict=True)


def strict_schema_cost(schema: Mapping[str, Any]) -> StrictSchemaCost:
    """Optional and union properties of ``schema``, at every depth (definitions counted once)."""
    optional = unions = 0
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, Mapping):
            continue
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            required = node.get("required")
            required_names = set(required) if isinstance(required, list) else set()
            optional += sum(1 for name in properties if name not in required_names)
            unions += sum(
                1
                for value in properties.values()
                if isinstance(value, Mapping)
                and ("anyOf" in value or isinstance(value.get("type"), list))
            )
        stack.extend(value for value in node.values() if isinstance(value, (Mapping, list)))
    return StrictSchemaCost(optional, unions)


def _check_definitions(walk: SchemaWalk) -> None:
    """Definitions are objects, and no ``$ref`` cycle is reachable (the grammar cannot recurse)."""
    for key in ("$defs", "definitions"):
        found = walk.root.get(key)
        if found is not None and not isinstance(found, Mapping):
            raise SchemaRefusedError(f"{key} is not an object")
    recursive = recursive_ref(walk)
    if recursive is not None:
        name = recursive.rsplit("/", 1)[-1]
        raise SchemaRefusedError(f"the schema is recursive (through {name!r})")


class _AnthropicRules:
    """Keeps what strict mode reads, in its order; moves other constraints into ``description``."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.walk = SchemaWalk(root, self)

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            raise SchemaRefusedError(f"{_at(path)} is not a schema object")
        rest = {k: v for k, v in node.items() if k not in _DROPPED}
        out: dict[str, Any] = {}
        if not path:  # the root keeps its definitions, converted
            for key in ("$defs", "definitions"):
                if rest.pop(key, None) is not None:
                    out[key] = walk.keyword(key, node[key], path)
        ref = rest.pop("$ref", None)
        if ref is not None:
            return self._ref(ref, rest, out, path)
        shaping = sorted(_SHAPING & set(rest))
        if shaping:
            raise SchemaRefusedError(f"{_at(path)} uses {', '.join(shaping)}")
        self._literals(rest, out, path)
        self._combinators(rest, out, path)
        types = self._types(rest, out, path)
        for key in _KEPT:
            if key in rest:
                out[key] = rest.pop(key)
        if "object" in types:
            self._object(rest, out, path)
        if "array" in types:
            self._array(rest, out, path)
        if "string" in types:
            form = rest.pop("format", None)
            if form in _FORMATS:
                out["format"] = form
            elif form is not None:
                rest["format"] = form
        if rest:  # constraints strict mode lacks: the model reads them in the description
            described = json.dumps(rest, ensure_ascii=False, sort_keys=True, default=str)
            description = out.get("description")
            out["description"] = f"{description}\n\n{described}" if description else described
        return out

    def _ref(
        self, ref: Any, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath
    ) -> dict[str, Any]:
        target = self.walk.definition(ref)
        if target is None or not ref.startswith(_REF_PREFIXES):
            raise SchemaRefusedError(f"{_at(path)} refers to {ref!r}, not a local definition")
        if not rest:
            out["$ref"] = ref
            return out
        # Keywords beside a $ref: inline the definition (not recursive: checked), siblings win.
        if not isinstance(target, Mapping):
            raise SchemaRefusedError(f"{_at(path)} refers to {ref!r}, which is not a schema object")
        merged = {**target, **rest}
        merged.pop("$defs", None)
        merged.pop("definitions", None)
        return {**out, **self.walk.rewrite(merged, path or ("#",))}

    def _literals(self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath) -> None:
        if "enum" in rest:
            values = rest.pop("enum")
            if not isinstance(values, list) or not values or not all(map(_primitive, values)):
                raise SchemaRefusedError(f"{_at(path)} has an enum of non-primitive values")
            out["enum"] = list(values)
        if "const" in rest:
            value = rest.pop("const")
            if not _primitive(value):
                raise SchemaRefusedError(f"{_at(path)} has a non-primitive const")
            out["const"] = value

    def _combinators(self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath) -> None:
        for key, target in (("anyOf", "anyOf"), ("oneOf", "anyOf"), ("allOf", "allOf")):
            if key not in rest:
                continue
            branches = rest.pop(key)
            if not isinstance(branches, list) or not branches:
                raise SchemaRefusedError(f"{_at(path)} has an empty or invalid {key}")
            if target in out:
                raise SchemaRefusedError(f"{_at(path)} combines anyOf and oneOf")
            converted = self.walk.keyword(key, branches, path)
            if target == "allOf":  # Anthropic's allOf may not hold a $ref: inline those
                converted = [self._inlined(branch, path) for branch in converted]
            out[target] = converted

    def _inlined(self, branch: dict[str, Any], path: SchemaPath) -> dict[str, Any]:
        ref = branch.get("$ref")
        if ref is None:
            return branch
        inlined: dict[str, Any] = self.walk.rewrite(self.walk.definition(ref), path or ("#",))
        return inlined

    def _types(self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath) -> set[str]:
        kind = rest.pop("type", None)
        if kind is None:
            if not {"enum", "const", "anyOf", "allOf"} & set(out):
                raise SchemaRefusedError(f"{_at(path)} allows a value of any type")
            return set()
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) and k in _TYPES for k in kinds):
            raise SchemaRefusedError(f"{_at(path)} has an unknown type {kind!r}")
        out["type"] = list(kinds) if isinstance(kind, list) else kind
        return set(kinds)

    def _object(self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath) -> None:
        extra = rest.pop("additionalProperties", None)
        if extra is not False:
            shape = "a mapping" if isinstance(extra, Mapping) and extra else "an open object"
            raise SchemaRefusedError(f"{_at(path)} is {shape}; strict objects are closed")
        properties = rest.pop("properties", {})
        if not isinstance(properties, Mapping):
            raise SchemaRefusedError(f"{_at(path)} has invalid properties")
        out["properties"] = self.walk.keyword("properties", properties, path)
        out["additionalProperties"] = False
        if "required" in rest:
            out["required"] = list(rest.pop("required"))

    def _array(self, rest: dict[str, Any], out: dict[str, Any], path: SchemaPath) -> None:
        items = rest.pop("items", None)
        if not isinstance(items, Mapping) or not items:
            raise SchemaRefusedError(f"{_at(path)} is an array of any values")
        out["items"] = self.walk.rewrite(items, (*path, "items"))
        if rest.get("minItems") in (0, 1):
            out["minItems"] = rest.pop("minItems")


def _primitive(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _at(path: SchemaPath) -> str:
    """``path`` as the reasons name it: ``property 'a/b[]'``, ``property '$defs/N/x'``."""
    where, rest = "", list(path)
    while rest:
        key = rest.pop(0)
        if key in ("#", "items"):
            where = "#" if key == "#" else f"{where}[]"
        elif key in ("$defs", "definitions"):
            where = f"{key}/{rest.pop(0)}"
        else:
            name = rest.pop(0)
            where += f"/{name}" if key == "properties" else f"/{key}/{name}"
    return f"property {where.lstrip('/')!r}" if where else "the schema"
