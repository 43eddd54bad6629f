"""An MCP server on the SDK's low-level ``Server`` that lists what ``MCPServer`` would not let a
tool say: an ``inputSchema`` that is not valid JSON Schema, and structured content that does
not match the tool's own ``outputSchema``. ``echo`` is a well-behaved tool beside them.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

SAFE = ToolAnnotations(read_only_hint=True)

TOOLS = [
    Tool(
        name="bad_schema",
        description="Its inputSchema gives a property the type 'nonsense'.",
        input_schema={"type": "object", "properties": {"x": {"type": "nonsense"}}},
        annotations=SAFE,
    ),
    Tool(
        name="bad_output",
        description="Promises an integer n and answers a string.",
        input_schema={"type": "object", "properties": {}},
        output_schema={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
        annotations=SAFE,
    ),
    Tool(
        name="echo",
        description="Answers its text.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        annotations=SAFE,
    ),
]


async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    arguments = params.arguments or {}
    if params.name == "bad_output":
        return CallToolResult(
            content=[TextContent(type="text", text='{"n": "seven"}')],
            structured_content={"n": "seven"},
        )
    if params.name == "bad_schema":
        return CallToolResult(content=[TextContent(type="text", text="bad_schema ran")])
    return CallToolResult(content=[TextContent(type="text", text=f"echo: {arguments['text']}")])


server = Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
