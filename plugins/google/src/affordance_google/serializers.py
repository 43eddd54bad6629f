"""Google's serializers, one per role of the provider contract (registered at priority 0).

- ``tool``: a ``functionDeclarations`` entry ``{name, description, parametersJsonSchema}``, the
  schema in Gemini's JSON-Schema dialect (:mod:`._schema`); the adapter gathers the entries
  into one ``{"functionDeclarations": [...]}`` tool.
- ``tool_result``: the ``response`` object of a ``functionResponse`` part — ``{"output": text}``
  for a success, ``{"error": text}`` for a failure, the convention the API documents for the
  model to tell them apart. The adapter adds ``name`` and, when the model sent one, ``id``.
- ``output``: the ``generationConfig`` fields of structured output, ``{"responseMimeType":
  "application/json", "responseJsonSchema": schema}``.

Keys are the REST API's camelCase: the adapter hands the body to the SDK as it is. Pure dict
transforms: importing this module imports no SDK.
"""

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
    """Role ``tool``: a function declaration with a plain JSON Schema (Gemini's subset).

    Gemini names start with a letter or ``_``; a tool name starting with a digit or ``-``
    (allowed by affordance) is declared with a leading ``_``, and the adapter maps the model's
    calls back to the tool's own name.
    """

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
