"""``ToolSweepAdapter``: calls every exposed tool once with arguments made from its schema.

A smoke test for a prompt's tools: every handler runs with schema-valid input, and the result
of each call is visible in the response. The final answer lists which calls succeeded (or, for
a prompt with structured output, is a value generated from the output schema).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from affordance.adapters import ModelRequest, ProviderTurn, ToolCall, ToolResultMessage
from affordance.runtime import Evaluator

__all__ = ["ToolSweepAdapter", "sample_from_schema"]


class ToolSweepAdapter(Evaluator):
    """An offline runner that is its own model: the first turn calls every exposed tool."""

    name = "tool-sweep"

    def send(self, request: ModelRequest) -> ProviderTurn:
        if request.turn == 1 and request.tools:
            calls = tuple(
                ToolCall(
                    f"sweep_{index}",
                    tool.name,
                    json.dumps(sample_from_schema(tool.parameters_schema())),
                )
                for index, tool in enumerate(request.tools)
                if tool.name != "open_sections"
            )
            if calls:
                return ProviderTurn(tool_calls=calls, finish_reason="tool_calls")
        if request.output_schema is not None:
            return ProviderTurn(text=json.dumps(sample_from_schema(request.output_schema)))
        results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
        lines = [f"{m.name}: {'failed' if m.is_error else 'ok'}" for m in results]
        return ProviderTurn(text="\n".join(lines) or "No tools to call.")

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)


def sample_from_schema(schema: Mapping[str, Any], defs: Mapping[str, Any] | None = None) -> Any:
    """A small value valid against ``schema`` (the subset of JSON Schema serde produces)."""
    defs = schema.get("$defs", defs or {})
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return sample_from_schema(defs[name], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return sample_from_schema(options[0], defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = schema.get("required", list(properties))
        return {name: sample_from_schema(properties[name], defs) for name in required}
    if kind == "array":
        if "prefixItems" in schema:
            return [sample_from_schema(item, defs) for item in schema["prefixItems"]]
        count = int(schema.get("minItems", 1))
        item = sample_from_schema(schema.get("items", {}), defs)
        if schema.get("uniqueItems") and count > 1:
            return [item]
        return [item] * count
    if kind == "string":
        return _sample_string(schema)
    if kind == "integer":
        return int(schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1))
    if kind == "number":
        return float(schema.get("minimum", 0))
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "example"


def _sample_string(schema: Mapping[str, Any]) -> str:
    formats = {
        "date-time": "2026-01-01T00:00:00+00:00",
        "date": "2026-01-01",
        "time": "12:00:00",
        "uuid": "00000000-0000-4000-8000-000000000000",
    }
    value = formats.get(str(schema.get("format")), "example")
    minimum = int(schema.get("minLength", 0))
    maximum = int(schema.get("maxLength", 10_000))
    if len(value) < minimum:
        value = value + "x" * (minimum - len(value))
    return value[:maximum]
