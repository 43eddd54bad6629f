"""The error a web search configuration raises on a provider that cannot honour it."""

from __future__ import annotations

from collections.abc import Iterable

from affordance.errors import PromptEvaluationError
from affordance.tools.hosted import HostedTool
from affordance_web_search.config import WebSearchConfig

__all__ = ["UnsupportedWebSearchConfigError", "config_of", "refuse_unhonoured"]


class UnsupportedWebSearchConfigError(PromptEvaluationError):
    """A ``web_search`` setting the chosen provider cannot honour (phase ``render``).

    Raised by the provider's codec while the request is built, so before anything is sent:
    a setting is never silently dropped. ``field`` is the :data:`CONFIG_FIELDS` entry,
    ``provider`` the codec's provider (``openai``, ``openai-chat``, ``anthropic``,
    ``google``), ``tool_name`` the hosted tool's name.
    """

    def __init__(
        self, message: str, *, field: str, provider: str, tool_name: str | None = None
    ) -> None:
        self.field = field
        self.tool_name = tool_name
        super().__init__(message, phase="render", provider=provider)


def config_of(tool: HostedTool[WebSearchConfig]) -> WebSearchConfig:
    """The tool's config, checked: a codec of this plugin reads only :class:`WebSearchConfig`."""
    config: object = tool.config
    if not isinstance(config, WebSearchConfig):
        raise TypeError(
            f"hosted tool {tool.name!r} has a {type(config).__qualname__} config; the "
            "affordance-web-search codecs read WebSearchConfig"
        )
    return config


def refuse_unhonoured(
    tool: HostedTool[WebSearchConfig], *, provider: str, honours: Iterable[str]
) -> WebSearchConfig:
    """The tool's config, once every setting it asks for is one ``provider`` honours; else
    :class:`UnsupportedWebSearchConfigError` naming the first setting it does not."""
    config = config_of(tool)
    honoured = tuple(honours)
    for field in config.requested():
        if field not in honoured:
            supported = ", ".join(honoured) if honoured else "none of them"
            raise UnsupportedWebSearchConfigError(
                f"web search tool {tool.name!r} sets {field}, which provider {provider!r} "
                f"cannot honour (it honours: {supported}); remove the setting or choose "
                "another provider",
                field=field,
                provider=provider,
                tool_name=tool.name,
            )
    return config
