"""The error an MCP server configuration raises on a provider that cannot honour it."""

from __future__ import annotations

from collections.abc import Iterable

from affordance.errors import UnsupportedHostedConfigError
from affordance.tools import HostedTool, config_as
from affordance.tools import refuse_unhonoured as refuse_any_unhonoured
from affordance_mcp.hosted.config import MCPServerConfig

__all__ = ["UnsupportedMCPConfigError", "config_of", "refuse_setting", "refuse_unhonoured"]


class UnsupportedMCPConfigError(UnsupportedHostedConfigError):
    """An ``mcp`` setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so before anything is sent: a
    setting is never silently dropped. ``field`` is the :data:`CONFIG_FIELDS` entry,
    ``provider`` the codec's provider (``openai``, ``anthropic``), ``tool_name`` the hosted
    tool's name.
    """


def config_of(tool: HostedTool[MCPServerConfig]) -> MCPServerConfig:
    """The tool's config, checked: this plugin's codecs read only :class:`MCPServerConfig`."""
    return config_as(tool, MCPServerConfig)


def refuse_unhonoured(
    tool: HostedTool[MCPServerConfig], *, provider: str, honours: Iterable[str]
) -> MCPServerConfig:
    """The tool's config, once every setting it asks for is one ``provider`` honours; else
    :class:`UnsupportedMCPConfigError` naming the first setting it does not."""
    config = config_of(tool)
    refuse_any_unhonoured(
        tool,
        config.requested(),
        provider=provider,
        honours=honours,
        error=UnsupportedMCPConfigError,
    )
    return config


def refuse_setting(
    tool: HostedTool[MCPServerConfig], *, provider: str, field: str, why: str
) -> UnsupportedMCPConfigError:
    """The error for a setting ``provider`` honours only in part (``why`` says which part)."""
    return UnsupportedMCPConfigError(
        f"mcp tool {tool.name!r} sets {field}, which provider {provider!r} cannot honour "
        f"as given: {why}",
        field=field,
        provider=provider,
        tool_name=tool.name,
    )
