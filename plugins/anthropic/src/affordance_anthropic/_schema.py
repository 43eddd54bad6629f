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

The input schema is never modified: it is typically the cached schema of a params type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


class _NotStrictError(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


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
    try:
        defs = _definitions(schema)
        _check_no_recursion(schema, defs)
        converted = _Converter(defs).convert(schema, "")
    except _NotStrictError as refused:
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


def _definitions(schema: Mapping[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if found is None:
            continue
        if not isinstance(found, Mapping):
            raise _NotStrictError(f"{key} is not an object")
        defs.update((f"#/{key}/{name}", value) for name, value in found.items())
    return defs


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(
                v for k, v in item.items() if k not in ("$defs", "definitions") and k != "$ref"
            )
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _check_no_recursion(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> None:
    """A ``$ref`` cycle reachable from the root would need a recursive grammar."""
    edges = {name: _refs(definition) for name, definition in defs.items()}
    done: set[str] = set()

    def visit(ref: str, path: tuple[str, ...]) -> None:
        if ref in path:
            name = ref.rsplit("/", 1)[-1]
            raise _NotStrictError(f"the schema is recursive (through {name!r})")
        if ref in done or ref not in edges:
            return
        for target in edges[ref]:
            visit(target, (*path, ref))
        done.add(ref)

    for ref in _refs(schema):
        visit(ref, ())


class _Converter:
    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs

    def convert(self, node: Any, where: str) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            raise _NotStrictError(f"{_at(where)} is not a schema object")
        rest = {k: v for k, v in node.items() if k not in _DROPPED}
        out: dict[str, Any] = {}
        if not where:  # the root keeps its definitions, converted
            for key in ("$defs", "definitions"):
                defs = rest.pop(key, None)
                if defs is not None:
                    out[key] = {
                        name: self.convert(value, f"{key}/{name}") for name, value in defs.items()
                    }
        ref = rest.pop("$ref", None)
        if ref is not None:
            return self._ref(ref, rest, out, where)
        shaping = sorted(_SHAPING & set(rest))
        if shaping:
            raise _NotStrictError(f"{_at(where)} uses {', '.join(shaping)}")
        self._literals(rest, out, where)
        self._combinators(rest, out, where)
        types = self._types(rest, out, where)
        for key in _KEPT:
            if key in rest:
                out[key] = rest.pop(key)
        if "object" in types:
            self._object(rest, out, where)
        if "array" in types:
            self._array(rest, out, where)
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
        self, ref: Any, rest: dict[str, Any], out: dict[str, Any], where: str
    ) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith(_REF_PREFIXES) or ref not in self.defs:
            raise _NotStrictError(f"{_at(where)} refers to {ref!r}, not a local definition")
        if not rest:
            out["$ref"] = ref
            return out
        # Keywords beside a $ref: inline the definition (not recursive: checked), siblings win.
        target = self.defs[ref]
        if not isinstance(target, Mapping):
            raise _NotStrictError(f"{_at(where)} refers to {ref!r}, which is not a schema object")
        merged = {**target, **rest}
        merged.pop("$defs", None)
        merged.pop("definitions", None)
        return {**out, **self.convert(merged, where or "#")}

    def _literals(self, rest: dict[str, Any], out: dict[str, Any], where: str) -> None:
        if "enum" in rest:
            values = rest.pop("enum")
            if not isinstance(values, list) or not values or not all(map(_primitive, values)):
                raise _NotStrictError(f"{_at(where)} has an enum of non-primitive values")
            out["enum"] = list(values)
        if "const" in rest:
            value = rest.pop("const")
            if not _primitive(value):
                raise _NotStrictError(f"{_at(where)} has a non-primitive const")
            out["const"] = value

    def _combinators(self, rest: dict[str, Any], out: dict[str, Any], where: str) -> None:
        for key, target in (("anyOf", "anyOf"), ("oneOf", "anyOf"), ("allOf", "allOf")):
            if key not in rest:
                continue
            branches = rest.pop(key)
            if not isinstance(branches, list) or not branches:
                raise _NotStrictError(f"{_at(where)} has an empty or invalid {key}")
            if target in out:
                raise _NotStrictError(f"{_at(where)} combines anyOf and oneOf")
            converted = [self.convert(b, f"{where}/{key}/{i}") for i, b in enumerate(branches)]
            if target == "allOf":  # Anthropic's allOf may not hold a $ref: inline those
                converted = [self._inlined(branch, where) for branch in converted]
            out[target] = converted

    def _inlined(self, branch: dict[str, Any], where: str) -> dict[str, Any]:
        ref = branch.get("$ref")
        if ref is None:
            return branch
        return self.convert(self.defs[ref], where or "#")

    def _types(self, rest: dict[str, Any], out: dict[str, Any], where: str) -> set[str]:
        kind = rest.pop("type", None)
        if kind is None:
            if not {"enum", "const", "anyOf", "allOf"} & set(out):
                raise _NotStrictError(f"{_at(where)} allows a value of any type")
            return set()
        kinds = kind if isinstance(kind, list) else [kind]
        if not kinds or not all(isinstance(k, str) and k in _TYPES for k in kinds):
            raise _NotStrictError(f"{_at(where)} has an unknown type {kind!r}")
        out["type"] = list(kinds) if isinstance(kind, list) else kind
        return set(kinds)

    def _object(self, rest: dict[str, Any], out: dict[str, Any], where: str) -> None:
        extra = rest.pop("additionalProperties", None)
        if extra is not False:
            shape = "a mapping" if isinstance(extra, Mapping) and extra else "an open object"
            raise _NotStrictError(f"{_at(where)} is {shape}; strict objects are closed")
        properties = rest.pop("properties", {})
        if not isinstance(properties, Mapping):
            raise _NotStrictError(f"{_at(where)} has invalid properties")
        out["properties"] = {
            name: self.convert(value, f"{where}/{name}") for name, value in properties.items()
        }
        out["additionalProperties"] = False
        if "required" in rest:
            out["required"] = list(rest.pop("required"))

    def _array(self, rest: dict[str, Any], out: dict[str, Any], where: str) -> None:
        items = rest.pop("items", None)
        if not isinstance(items, Mapping) or not items:
            raise _NotStrictError(f"{_at(where)} is an array of any values")
        out["items"] = self.convert(items, f"{where}[]")
        if rest.get("minItems") in (0, 1):
            out["minItems"] = rest.pop("minItems")


def _primitive(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _at(where: str) -> str:
    return f"property {where.lstrip('/')!r}" if where else "the schema"
