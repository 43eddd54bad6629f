"""Provider-hosted MCP: the hosted tool kind ``mcp``, one typed result on every provider that
can host it.

Give a prompt a :class:`HostedMCPSection` (or :func:`hosted_mcp_tool` on any section) with an
:class:`MCPServerConfig`; the provider plugin declares the server through this package's codec
for that provider — OpenAI Responses (``openai``), Anthropic's MCP connector (``anthropic``) —
and the calls come back as a :class:`HostedMCPResult` in ``PromptResponse.hosted_outputs``.
Calls the provider holds for approval are ``PromptResponse.pending_confirmations``. Chat
Completions and Gemini cannot host MCP: a request there fails before anything is sent; a
setting a provider cannot honour raises :class:`UnsupportedMCPConfigError`, also before.

Names resolve on first access (PEP 562): nothing here imports a provider SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

_EXPORTS: dict[str, str] = {
    "CONFIG_FIELDS": "affordance_mcp.hosted.config",
    "ApprovalFilter": "affordance_mcp.hosted.config",
    "MCPServerConfig": "affordance_mcp.hosted.config",
    "RequireApproval": "affordance_mcp.hosted.config",
    "RESULT_FIELDS": "affordance_mcp.hosted.result",
    "HostedMCPResult": "affordance_mcp.hosted.result",
    "MCPCallResult": "affordance_mcp.hosted.result",
    "MCPListedTool": "affordance_mcp.hosted.result",
    "UnsupportedMCPConfigError": "affordance_mcp.hosted.errors",
    "HostedMCPSection": "affordance_mcp.hosted.section",
    "HOSTED_MCP_KIND": "affordance_mcp.plugin",
    "hosted_mcp_tool": "affordance_mcp.plugin",
}

__all__ = [
    "CONFIG_FIELDS",
    "HOSTED_MCP_KIND",
    "RESULT_FIELDS",
    "ApprovalFilter",
    "HostedMCPResult",
    "HostedMCPSection",
    "MCPCallResult",
    "MCPListedTool",
    "MCPServerConfig",
    "RequireApproval",
    "UnsupportedMCPConfigError",
    "hosted_mcp_tool",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)

if TYPE_CHECKING:
    from affordance_mcp.hosted.config import (
        CONFIG_FIELDS,
        ApprovalFilter,
        MCPServerConfig,
        RequireApproval,
    )
    from affordance_mcp.hosted.errors import UnsupportedMCPConfigError
    from affordance_mcp.hosted.result import (
        RESULT_FIELDS,
        HostedMCPResult,
        MCPCallResult,
        MCPListedTool,
    )
    from affordance_mcp.hosted.section import HostedMCPSection
    from affordance_mcp.plugin import HOSTED_MCP_KIND, hosted_mcp_tool
