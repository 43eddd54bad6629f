"""The entry point of ``affordance-mcp`` (``[project.entry-points."affordance.plugins"]``): the
provider-hosted ``mcp`` kind, declared once, and the hooks it makes.

A hosted ``mcp`` tool hands the provider a remote MCP server: the provider lists the server's
tools, the model calls them, the provider runs the calls (OpenAI Responses' ``mcp`` tool,
Anthropic's MCP connector) and reports them as a
:class:`~affordance_mcp.hosted.HostedMCPResult` in ``PromptResponse.hosted_outputs[name]``.

This module imports ``affordance`` and nothing else — no provider SDK, not the ``mcp`` SDK:
the config, the result and the codecs are named by dotted path and imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import hosted_kind_hooks
from affordance.tools import HostedKind, HostedTool

if TYPE_CHECKING:
    from affordance_mcp.hosted.config import MCPServerConfig

__all__ = [
    "CODECS",
    "HOSTED_MCP",
    "HOSTED_MCP_KIND",
    "affordance_register_codecs",
    "affordance_register_hosted_tool_kinds",
    "hosted_mcp_tool",
]

_PACKAGE = "affordance_mcp.hosted"

HOSTED_MCP: HostedKind[MCPServerConfig] = HostedKind(
    kind="mcp",
    config=f"{_PACKAGE}.config:MCPServerConfig",
    output=f"{_PACKAGE}.result:HostedMCPResult",
    codecs={  # OpenAI Chat (``openai-chat``) and Gemini (``google``) cannot host MCP
        "openai": f"{_PACKAGE}.openai_responses:OpenAIMCPCodec",
        "anthropic": f"{_PACKAGE}.anthropic_messages:AnthropicMCPCodec",
    },
    description="Provider-hosted MCP: the provider calls a remote MCP server's tools",
    tool_description="Call the tools of a remote MCP server.",
    title="MCP Server",
    guidance=(
        "You can call the tools of a remote MCP server. Use them when the task needs what the "
        "server offers, and say what their results were."
    ),
)
"""The ``mcp`` kind: its types, its codec per provider, its tool and section text."""

HOSTED_MCP_KIND = HOSTED_MCP.kind

CODECS = HOSTED_MCP.codecs
"""Codec provider -> the codec class (Chat Completions and Gemini have none)."""


def hosted_mcp_tool(
    config: MCPServerConfig, *, name: str | None = None, description: str | None = None
) -> HostedTool[MCPServerConfig]:
    """A hosted ``mcp`` tool for the server ``config`` names (there is no default server).

    ``name`` (default ``"mcp"``) is the key of its output in ``hosted_outputs`` and must be
    unique in the prompt: name each server's tool when a prompt has several.
    """
    return HOSTED_MCP.tool(config, name=name, description=description)


affordance_register_hosted_tool_kinds, affordance_register_codecs = hosted_kind_hooks(HOSTED_MCP)
