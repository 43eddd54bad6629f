"""OpenAI's serializers, one per role, registered at priority 0 (``specs/adapters/openai.md``:
"What the serializers produce", "The strict-schema rule"). Pure dict transforms: no SDK import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from affordance.adapters import OutputFormat, ToolDeclaration, ToolResultMessage, convert_schema
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
        name = _NAME_UNSAFE.sub("_", name)[:64] or "output"  # OpenAI: [A-Za-z0-9_-]{1,64}
        wire = {"name": name, "schema": converted.schema, "strict": converted.strict}
        return OutputFormat(wire, converted.normalize_text)
