"""Google's serializers, one per role (registered at priority 0): dict transforms to the REST
API's camelCase, importing no SDK (``specs/adapters/google.md``, "Concept mapping")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance.adapters import OutputFormat, ToolDeclaration, ToolResultMessage, convert_schema
from affordance.tools import Tool
from affordance_google._schema import GEMINI

__all__ = [
    "GoogleOutputSerializer",
    "GoogleToolResultSerializer",
    "GoogleToolSerializer",
    "wire_name",
]


def wire_name(name: str) -> str:
    """``name`` as a Gemini function name, which starts with a letter or ``_``."""
    return name if name[:1].isalpha() or name[:1] == "_" else f"_{name}"


class GoogleToolSerializer:
    """Role ``tool``: a function declaration, named by :func:`wire_name`, in Gemini's dialect."""

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        converted = convert_schema(tool.parameters_schema(), GEMINI)
        function = {
            "name": wire_name(tool.name),
            "description": tool.description,
            "parametersJsonSchema": converted.schema,
        }
        return ToolDeclaration(function, None, converted.note)


class GoogleToolResultSerializer:
    """Role ``tool_result``: ``{"output": text}``, or ``{"error": text}`` for a failure."""

    def serialize(self, message: ToolResultMessage) -> dict[str, Any]:
        return {"error" if message.is_error else "output": message.content}


class GoogleOutputSerializer:
    """Role ``output``: JSON mode with the schema as ``responseJsonSchema``."""

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        converted = convert_schema(schema, GEMINI)
        wire = {"responseMimeType": "application/json", "responseJsonSchema": converted.schema}
        return OutputFormat(wire)
