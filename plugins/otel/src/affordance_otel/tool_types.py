"""``gen_ai.tool.type`` of a tool the executor runs: ``mcp`` for a tool an MCP server serves
(affordance-mcp's), ``function`` for any other.

Told apart by where the tool's handler or result type is defined, so this plugin imports no
other plugin. Hosted tools (run by the provider) never reach the executor: no ``execute_tool``
span is made for them (``specs/OBSERVABILITY.md``).
"""

from __future__ import annotations

from typing import Any

from affordance import Tool

__all__ = ["FUNCTION", "MCP", "tool_type_of"]

FUNCTION = "function"
MCP = "mcp"
_MCP_PACKAGE = "affordance_mcp"


def tool_type_of(tool: Tool[Any, Any]) -> str:
    for part in (tool.handler, tool.result_type):
        module = getattr(part, "__module__", None) or ""
        if module == _MCP_PACKAGE or module.startswith(f"{_MCP_PACKAGE}."):
            return MCP
    return FUNCTION
