"""The error a web search configuration raises on a provider that cannot honour it."""

from __future__ import annotations

from collections.abc import Iterable

from affordance.errors import UnsupportedHostedConfigError
from affordance.tools import HostedTool, config_as
from affordance.tools import refuse_unhonoured as refuse_any_unhonoured
from affordance_web_search.config import WebSearchConfig

__all__ = ["UnsupportedWebSearchConfigError", "config_of", "refuse_unhonoured"]


class UnsupportedWebSearchConfigError(UnsupportedHostedConfigError):
    """A ``web_search`` setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so before anything is sent:
    a setting is never silently dropped. ``field`` is the :data:`CONFIG_FIELDS` entry,
    ``provider`` the codec's provider (``openai``, ``openai-chat``, ``anthropic``,
    ``google``), ``tool_name`` the hosted tool's name.
    """


def config_of(tool: HostedTool[WebSearchConfig]) -> WebSearchConfig:
    """The tool's config, checked: this plugin's codecs read only :class:`WebSearchConfig`."""
    return config_as(tool, WebSearchConfig)


def refuse_unhonoured(
    tool: HostedTool[WebSearchConfig], *, provider: str, honours: Iterable[str]
) -> WebSearchConfig:
    """The tool's config, once every setting it asks for is one ``provider`` honours; else
    :class:`UnsupportedWebSearchConfigError` naming the first setting it does not."""
    config = config_of(tool)
    requested = config.requested()
    refuse_any_unhonoured(
        tool, requested, provider=provider, honours=honours, error=UnsupportedWebSearchConfigError
    )
    return config
