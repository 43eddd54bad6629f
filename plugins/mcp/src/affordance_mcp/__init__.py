"""affordance-mcp: the Model Context Protocol for affordance, on the official ``mcp`` SDK.

- :class:`MCPSection` — an MCP server's tools as a section of a prompt
  (``MCPSection.stdio(...)``, ``MCPSection.http(...)``), run through the core executor.
- :func:`serve` — a prompt's tools as an MCP server (also ``affordance mcp serve``).
- the hosted kind ``mcp`` — a provider calls a remote MCP server itself (OpenAI Responses,
  Anthropic): :class:`HostedMCPSection` or :func:`hosted_mcp_tool` with an
  :class:`MCPServerConfig`, and one typed :class:`HostedMCPResult` (its
  :class:`MCPCallResult` calls) in ``hosted_outputs``.

Names resolve on first access (PEP 562): discovering the plugin imports no SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "MCPConnection": "affordance_mcp.connection",
    "MCPConnectError": "affordance_mcp.errors",
    "ServerGoneError": "affordance_mcp.errors",
    "BinaryPart": "affordance_mcp.results",
    "MCPToolOutput": "affordance_mcp.results",
    "ResourcePart": "affordance_mcp.results",
    "TextPart": "affordance_mcp.results",
    "MCPSection": "affordance_mcp.section",
    "NoModelError": "affordance_mcp.no_model",
    "NoModelRunner": "affordance_mcp.no_model",
    "serve": "affordance_mcp.serving",
    "serve_async": "affordance_mcp.serving",
    "server_for": "affordance_mcp.serving",
    "MCPToolOptions": "affordance_mcp.tools",
    "ApprovalFilter": "affordance_mcp.hosted.config",
    "MCPServerConfig": "affordance_mcp.hosted.config",
    "UnsupportedMCPConfigError": "affordance_mcp.hosted.errors",
    "HostedMCPResult": "affordance_mcp.hosted.result",
    "MCPCallResult": "affordance_mcp.hosted.result",
    "MCPListedTool": "affordance_mcp.hosted.result",
    "HostedMCPSection": "affordance_mcp.hosted.section",
    "hosted_mcp_tool": "affordance_mcp.plugin",
}

__all__ = [
    "ApprovalFilter",
    "BinaryPart",
    "HostedMCPResult",
    "HostedMCPSection",
    "MCPCallResult",
    "MCPConnectError",
    "MCPConnection",
    "MCPListedTool",
    "MCPSection",
    "MCPServerConfig",
    "MCPToolOptions",
    "MCPToolOutput",
    "NoModelError",
    "NoModelRunner",
    "ResourcePart",
    "ServerGoneError",
    "TextPart",
    "UnsupportedMCPConfigError",
    "__version__",
    "hosted_mcp_tool",
    "serve",
    "serve_async",
    "server_for",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)

if TYPE_CHECKING:
    from affordance_mcp.connection import MCPConnection
    from affordance_mcp.errors import MCPConnectError, ServerGoneError
    from affordance_mcp.hosted.config import ApprovalFilter, MCPServerConfig
    from affordance_mcp.hosted.errors import UnsupportedMCPConfigError
    from affordance_mcp.hosted.result import HostedMCPResult, MCPCallResult, MCPListedTool
    from affordance_mcp.hosted.section import HostedMCPSection
    from affordance_mcp.no_model import NoModelError, NoModelRunner
    from affordance_mcp.plugin import hosted_mcp_tool
    from affordance_mcp.results import BinaryPart, MCPToolOutput, ResourcePart, TextPart
    from affordance_mcp.section import MCPSection
    from affordance_mcp.serving import serve, serve_async, server_for
    from affordance_mcp.tools import MCPToolOptions
