"""``HostedMCPSection``: a section that tells the model it may call a remote MCP server's
tools, and hands the server to the provider."""

from __future__ import annotations

from collections.abc import Callable

from affordance.prompt import HostedKindSection, SectionVisibility
from affordance_mcp.hosted.config import MCPServerConfig
from affordance_mcp.plugin import HOSTED_MCP

__all__ = ["HostedMCPSection"]


class HostedMCPSection(HostedKindSection[MCPServerConfig]):
    """Guidance for the model plus one hosted ``mcp`` tool, exposed while the section is
    enabled and fully visible (like any section's tools).

    ``HostedMCPSection(config, *, key="mcp", name="mcp", title="MCP Server", template=...,
    enabled=None, visibility=FULL, summary=None)``: ``config`` is required (there is no default
    server); ``name`` is the hosted tool's name, the key of its output in ``hosted_outputs``;
    give ``key`` and ``name`` when a prompt has several servers.
    """

    hosted_kind = HOSTED_MCP

    def __init__(
        self,
        config: MCPServerConfig,
        *,
        key: str | None = None,
        name: str | None = None,
        title: str | None = None,
        template: str | None = None,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        if not isinstance(config, MCPServerConfig):
            raise TypeError(
                f"HostedMCPSection needs an MCPServerConfig, got {type(config).__name__}"
            )
        super().__init__(
            config,
            key=key,
            name=name,
            title=title,
            template=template,
            enabled=enabled,
            visibility=visibility,
            summary=summary,
        )
