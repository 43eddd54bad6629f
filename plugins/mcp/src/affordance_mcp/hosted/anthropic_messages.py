"""Anthropic Messages: the MCP connector — an ``mcp_toolset`` tool, the server in the request's
``mcp_servers``, the beta header — and the calls read from the content blocks.

Request (beta ``mcp-client-2025-11-20``, sent as the ``anthropic-beta`` header; the SDK's
``BetaMCPToolsetParam`` and ``BetaRequestMCPServerURLDefinitionParam``)::

    "tools": [{"type": "mcp_toolset", "mcp_server_name": "docs",
               "default_config": {"enabled": false},              # with allowed_tools only:
               "configs": {"search": {"enabled": true}}}]         # these tools, no others
    "mcp_servers": [{"type": "url", "url": "https://...", "name": "docs",
                     "authorization_token": "<token>"}]

``mcp_servers`` is a top-level field: the codec asks for it with ``request_extras`` (one entry
per MCP tool; the core concatenates them), and for the header with ``request_headers``.

Response: content blocks in order — ``mcp_tool_use`` {id, name, server_name, input (an
object)}, answered by ``mcp_tool_result`` {tool_use_id, is_error, content (a string or text
blocks)}; ``mcp_tool_listing`` {mcp_server_name, tools: [{name, description, input_schema}]}
when the API listed the server's tools. The connector asks for no approval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_mcp.hosted._reading import arguments_of, listed_tools, string, text_of
from affordance_mcp.hosted.config import MCPServerConfig
from affordance_mcp.hosted.errors import config_of, refuse_setting, refuse_unhonoured
from affordance_mcp.hosted.result import HostedMCPResult, MCPCallResult, MCPListedTool

__all__ = ["ANTHROPIC_MCP_BETA", "AnthropicMCPCodec"]

ANTHROPIC_MCP_BETA = "mcp-client-2025-11-20"
"""The MCP connector's beta (``mcp_toolset`` tools); ``mcp-client-2025-04-04`` is deprecated."""


class AnthropicMCPCodec:
    """``mcp`` on Anthropic's Messages API, through the MCP connector (codec provider
    ``anthropic``)."""

    kind = "mcp"
    provider: ClassVar[str] = "anthropic"
    honours: ClassVar[Mapping[str, str]] = {
        "server_label": "`mcp_servers[].name`, `mcp_toolset.mcp_server_name`",
        "server_url": "`mcp_servers[].url` (`https://` only)",
        "authorization": "`mcp_servers[].authorization_token`",
        "allowed_tools": "`default_config: {enabled: false}` + `configs.<tool>.enabled`",
        "require_approval": "`never` only (the connector asks for no approval)",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "calls.server": "`mcp_tool_use.server_name`",
        "calls.tool": "`mcp_tool_use.name`",
        "calls.arguments": "`mcp_tool_use.input`",
        "calls.output": "`mcp_tool_result.content` (its text)",
        "calls.error": "`mcp_tool_result.content` when `is_error`",
        "calls.call_id": "`mcp_tool_use.id`",
        "tools": "`mcp_tool_listing.tools`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "The server goes in the request's top-level `mcp_servers` (the codec's "
            "`request_extras`) and the request carries `anthropic-beta: "
            f"{ANTHROPIC_MCP_BETA}` (its `request_headers`, added to a beta of your own)."
        ),
        (
            "No per-server HTTP headers and no server description: `headers` and "
            "`server_description` are errors; a plain `http://` URL is an error."
        ),
        "The connector never asks for approval: `require_approval` other than `never` is an error.",
    )

    def serialize(self, tool: HostedTool[MCPServerConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        if config.require_approval not in (None, "never"):
            raise refuse_setting(
                tool,
                provider=self.provider,
                field="require_approval",
                why="the MCP connector runs every call without asking; use 'never' or another "
                "provider",
            )
        if not config.secure:
            raise refuse_setting(
                tool,
                provider=self.provider,
                field="server_url",
                why="the MCP connector reaches servers over https:// only",
            )
        declared: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": config.server_label}
        if config.allowed_tools is not None:
            declared["default_config"] = {"enabled": False}
            declared["configs"] = {name: {"enabled": True} for name in config.allowed_tools}
        return declared

    def request_extras(self, tool: HostedTool[MCPServerConfig]) -> dict[str, Any]:
        """The server's connection, a top-level ``mcp_servers`` entry."""
        config = config_of(tool)
        server: dict[str, Any] = {
            "type": "url",
            "url": config.server_url,
            "name": config.server_label,
        }
        if config.authorization is not None:
            server["authorization_token"] = config.authorization
        return {"mcp_servers": [server]}

    def request_headers(self, tool: HostedTool[MCPServerConfig]) -> dict[str, str]:
        """The connector is a beta: without the header the API refuses ``mcp_servers``."""
        return {"anthropic-beta": ANTHROPIC_MCP_BETA}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[MCPServerConfig]
    ) -> HostedMCPResult | None:
        label = config_of(tool).server_label
        with ItemReader(tool, self.provider) as read:
            blocks = list(read.objects(response_items, ("content",)))
            results = {  # ids that are no strings match no call (and must not break the dict)
                block["tool_use_id"]: (index, block)
                for index, block in blocks
                if block.get("type") == "mcp_tool_result"
                and isinstance(block.get("tool_use_id"), str)
            }
            calls: list[MCPCallResult] = []
            listed: list[MCPListedTool] = []
            for index, block in blocks:
                kind = block.get("type")
                if kind == "mcp_tool_use" and block.get("server_name") == label:
                    call = _call(block, index, label, results, read)
                    if call is not None:
                        calls.append(call)
                elif kind == "mcp_tool_listing" and block.get("mcp_server_name") == label:
                    position = ("content", index, "tools")
                    listed.extend(listed_tools(block.get("tools"), label, read, position))
            return HostedMCPResult(tuple(calls), tuple(listed)) if calls else None


def _call(
    block: Mapping[str, Any],
    index: int,
    server: str,
    results: Mapping[str, tuple[int, Mapping[str, Any]]],
    read: ItemReader,
) -> MCPCallResult | None:
    """One ``mcp_tool_use`` block and its result block (when the response holds it)."""
    position: Position = ("content", index)
    name = string(block, "name")
    if name is None:
        read.skip(position, "no name")
        return None
    call_id = string(block, "id")
    arguments = arguments_of(block.get("input"), read, (*position, "input"))
    found = results.get(call_id) if call_id is not None else None
    if found is None:
        return MCPCallResult(server, name, arguments, call_id=call_id)
    at, result = found
    text = text_of(result.get("content"), read, ("content", at, "content"))
    if result.get("is_error") is True:
        return MCPCallResult(server, name, arguments, error=text or "error", call_id=call_id)
    return MCPCallResult(server, name, arguments, output=text, call_id=call_id)
