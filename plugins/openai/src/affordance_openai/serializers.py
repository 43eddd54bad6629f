"""OpenAI's serializers, one per role of the provider contract (registered at priority 0).

- ``tool``: the function object ``{name, description, parameters, strict}``, strict whenever the
  params schema can be made strict (:mod:`._schema`); where strict mode turned an optional field
  into a required, nullable one, the model's ``null`` is dropped again before validation (the
  schema's ``NullPlan``). Chat nests the object under ``"function"``; Responses spreads it flat.
- ``tool_result``: the text the model reads; OpenAI has no error flag, so a failure says so in
  its first word (``Error: ...``).
- ``output``: ``{name, schema, strict}``, placed under ``text.format`` (Responses) or
  ``response_format.json_schema`` (Chat).

Pure dict transforms: importing this module imports no SDK.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from affordance.adapters import (
    OutputFormat,
    ToolDeclaration,
    ToolResultMessage,
    convert_schema,
)
from affordance.tools import Tool
from affordance_openai._schema import STRICT

__all__ = ["OpenAIOutputSerializer", "OpenAIToolResultSerializer", "OpenAIToolSerializer"]

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class OpenAIToolSerializer:
    """Role ``tool``: strict function declarations where the schema allows it."""

    def declare(self, tool: Tool[Any, Any]) -> ToolDeclaration:
        converted = convert_schema(tool.parameters_schema(), STRICT)
        function = {
            "name": tool.name,
            "description": tool.description,
            "parameters": converted.schema,
            "strict": converted.strict,
        }
        return ToolDeclaration(function, converted.normalize_arguments, converted.reason)


class OpenAIToolResultSerializer:
    """Role ``tool_result``: the result text; a failure begins with ``Error:``."""

    def serialize(self, message: ToolResultMessage) -> str:
        return f"Error: {message.content}" if message.is_error else message.content


class OpenAIOutputSerializer:
    """Role ``output``: a strict ``json_schema`` format where the schema allows it."""

    def output_format(self, schema: Mapping[str, Any], name: str) -> OutputFormat:
        converted = convert_schema(schema, STRICT)
        wire = {"name": _wire_name(name), "schema": converted.schema, "strict": converted.strict}
        return OutputFormat(wire, converted.normalize_text)


def _wire_name(name: str) -> str:
    """OpenAI names a schema with ``[A-Za-z0-9_-]{1,64}``."""
    return _NAME_UNSAFE.sub("_", name)[:64] or "output"
