"""Anthropic's serializers, one per role of the provider contract (registered at priority 0):
a tool's declaration (strict where the schema fits, :mod:`._schema`), a tool result's
``tool_result`` block, and what the body gains for structured output (JSON outputs, else the
schema as instructions). Pure dict transforms, no SDK import; the shapes are in
``specs/adapters/anthropic.md``, "What the serializers produce".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance.adapters import (
    OutputFormat,
    ToolDeclaration,
    ToolResultMessage,
    convert_schema,
    schema_prompt,
)
from affordance.tools import Tool
from affordance_anthropic._schema import STRICT

__all__ = ["AnthropicOutputSerializer", "AnthropicToolResultSerializer", "AnthropicToolSerializer"]


class AnthropicToolSerializer:
    """Role ``tool``: strict tool declarations where the schema allows it.

    ``strict=False`` never asks for strict mode (for a model without strict tool use).
    """

    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        schema = tool.parameters_schema()
        wire: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if not self.strict:
            wire["input_schema"] = schema
            return ToolDeclaration(wire, note="strict mode is off for this serializer")
        converted = convert_schema(schema, STRICT)
        wire["input_schema"] = converted.schema
        if converted.strict:
            wire["strict"] = True
        return ToolDeclaration(wire, note=converted.reason and f"not strict: {converted.reason}")


class AnthropicToolResultSerializer:
    """Role ``tool_result``: the ``tool_result`` block, flagged ``is_error`` when it failed."""

    def serialize(self, message: ToolResultMessage) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call_id}
        if message.content:  # an empty text is refused by the API; no content is allowed
            block["content"] = message.content
        if message.is_error:
            block["is_error"] = True
        return block


class AnthropicOutputSerializer:
    """Role ``output``: native JSON outputs where the schema allows it, else instructions.

    ``native=False`` always uses the instructions (for a model without JSON outputs).
    """

    def __init__(self, *, native: bool = True) -> None:
        self.native = native

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        if self.native:
            converted = convert_schema(schema, STRICT)
            if converted.strict:
                json_format = {"type": "json_schema", "schema": converted.schema}
                return OutputFormat({"output_config": {"format": json_format}})
        return OutputFormat({"system": schema_prompt(schema, name)})
