"""Gemini's JSON-Schema dialect: a tool's or an output's JSON Schema as ``parametersJsonSchema``
/ ``responseJsonSchema`` accept it.

The API takes plain JSON Schema there but documents only a subset (the ``response_json_schema``
docstring of ``google-genai``, which ``parameters_json_schema`` shares): ``$``-keywords (``$id``,
``$defs``, ``$ref``, ``$anchor``), ``type``, ``format``, ``title``, ``description``, ``enum``
(strings and numbers only), ``items``, ``prefixItems``, ``minItems``, ``maxItems``, ``minimum``,
``maximum``, ``anyOf``, ``oneOf``, ``properties``, ``additionalProperties``, ``required`` and
``propertyOrdering``; a sub-schema with ``$ref`` may carry no other keyword unless it starts
with ``$``. Everything else is transformed so the meaning survives:

=======================================  ==================================================
keyword                                  becomes
=======================================  ==================================================
``$ref`` beside other keywords           ``anyOf: [{"$ref": ...}]`` beside them
``const: v``                             ``enum: [v]`` (then as ``enum``)
``enum`` with booleans or ``null``       dropped; the allowed values go into ``description``
``exclusiveMinimum`` / ``exclusiveMaximum``  ``minimum`` / ``maximum`` (``±1`` for integers;
                                         for numbers the bound is stated in ``description``)
``allOf`` of one schema                  ``anyOf`` of that schema (the same meaning)
``pattern``, ``minLength``, ``maxLength``, ``multipleOf``, ``uniqueItems``,
``minProperties``, ``maxProperties``,    dropped from the schema and stated in
``default``                              ``description``, so the model still reads them
anything else (``not``, ``if``, ``allOf``
of several, ``patternProperties``, ...)  dropped, and named in the declaration's note
=======================================  ==================================================

Nothing is lost for the tool: the executor validates the model's arguments against the tool's
own schema, so a value the declaration no longer forbids still comes back as a failed call the
model reads. Pure dict transforms: no SDK import. The traversal is core's ``SchemaWalk``
(``specs/PLUGINS.md``, "Tool schemas"); this module holds Gemini's rules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from affordance.adapters import SCHEMA_KEYWORDS, SchemaPath, SchemaWalk, copy_json

__all__ = ["SUPPORTED_KEYWORDS", "Converted", "gemini_schema"]

SUPPORTED_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "oneOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    }
)
"""What the API documents beside the ``$``-keywords."""

_DESCRIBED = {
    "pattern": "pattern {}",
    "minLength": "at least {} characters",
    "maxLength": "at most {} characters",
    "multipleOf": "a multiple of {}",
    "uniqueItems": "items unique",
    "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
    "default": "default {}",
}
"""Keywords outside the subset that are stated in ``description`` instead (format of the hint)."""

_WALKED = SCHEMA_KEYWORDS & SUPPORTED_KEYWORDS | {"$defs", "definitions"}
"""The subschema keywords Gemini keeps (their subschemas rewritten in turn)."""


@dataclass(frozen=True, slots=True)
class Converted:
    """The schema as Gemini reads it, and what was changed (keyword names, sorted)."""

    schema: dict[str, Any]
    changed: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()

    @property
    def note(self) -> str | None:
        """What ``affordance render`` should say about the declaration, or None."""
        parts = []
        if self.changed:
            parts.append(f"rewritten for Gemini's JSON Schema subset: {', '.join(self.changed)}")
        if self.dropped:
            parts.append(
                f"not expressible for Gemini and dropped (still validated): "
                f"{', '.join(self.dropped)}"
            )
        return "; ".join(parts) or None


def gemini_schema(schema: Mapping[str, Any]) -> Converted:
    """``schema`` in Gemini's dialect (a new dict; ``schema`` is left as it is)."""
    rules = _GeminiRules()
    converted = SchemaWalk(schema, rules).run()
    return Converted(
        converted if isinstance(converted, dict) else {},
        tuple(sorted(rules.changed)),
        tuple(sorted(rules.dropped)),
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


class _GeminiRules:
    """Keyword by keyword, in order: kept, renamed, stated in ``description``, or dropped."""

    def __init__(self) -> None:
        self.changed: set[str] = set()
        self.dropped: set[str] = set()

    def rewrite(self, walk: SchemaWalk, node: Any, path: SchemaPath) -> Any:
        if not isinstance(node, Mapping):
            return node  # true / false schemas, or a value the API will judge
        walked = walk.subschemas(node, path, _WALKED)
        out: dict[str, Any] = {}
        hints: list[str] = []
        exclusive: list[tuple[str, Any]] = []
        for key, value in node.items():
            if key in walked:
                out[key] = walked[key]
            elif key.startswith("$") or key in SUPPORTED_KEYWORDS:
                out[key] = copy_json(value)
            elif key == "const":
                self.changed.add("const")
                out["enum"] = [copy_json(value)]
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and _is_number(value):
                exclusive.append((key, value))
            elif key == "allOf" and isinstance(value, list) and len(value) == 1:
                self.changed.add("allOf")
                out.setdefault("anyOf", []).append(walk.rewrite(value[0], (*path, key, 0)))
            elif key in _DESCRIBED:
                self.changed.add(key)
                hints.append(_DESCRIBED[key].format(_literal(value)))
            else:
                self.dropped.add(key)
        for key, value in exclusive:
            self._exclusive(node.get("type") == "integer", key, value, out, hints)
        self._enum(out, hints)
        self._ref(out)
        if hints:
            described = out.get("description")
            hint = f"({'; '.join(hints)})"
            out["description"] = f"{described} {hint}" if isinstance(described, str) else hint
        return out

    def _exclusive(
        self, integer: bool, key: str, value: Any, out: dict[str, Any], hints: list[str]
    ) -> None:
        """An exclusive bound as the inclusive one Gemini reads (exact for integers)."""
        self.changed.add(key)
        lower = key == "exclusiveMinimum"
        target = "minimum" if lower else "maximum"
        bound: Any = value
        if integer and isinstance(value, int):
            bound = value + 1 if lower else value - 1
        else:
            hints.append(f"{'greater' if lower else 'less'} than {_literal(value)}")
        current: Any = out.get(target)
        if _is_number(current):
            bound = max(bound, current) if lower else min(bound, current)
        out[target] = bound

    def _enum(self, out: dict[str, Any], hints: list[str]) -> None:
        values = out.get("enum")
        if not isinstance(values, list) or all(_is_number(v) or isinstance(v, str) for v in values):
            return
        self.changed.add("enum")
        del out["enum"]
        if len(values) == 1:
            hints.append(f"must be {_literal(values[0])}")
        elif not all(isinstance(v, bool) for v in values) or len(set(values)) < 2:
            hints.append(f"one of {', '.join(_literal(v) for v in values)}")

    def _ref(self, out: dict[str, Any]) -> None:
        if "$ref" not in out or all(key.startswith("$") for key in out):
            return
        self.changed.add("$ref")
        reference = {"$ref": out.pop("$ref")}
        if "anyOf" in out:
            self.dropped.add("anyOf beside $ref")
        out["anyOf"] = [reference]
