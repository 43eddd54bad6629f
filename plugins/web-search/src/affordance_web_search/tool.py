"""``web_search_tool()``: the hosted tool, ready to attach to any section."""

from __future__ import annotations

from affordance.tools import HostedTool
from affordance_web_search.config import WebSearchConfig

__all__ = ["WEB_SEARCH_KIND", "web_search_tool"]

WEB_SEARCH_KIND = "web_search"

_DESCRIPTION = "Search the web for current information and cite sources."


def web_search_tool(
    config: WebSearchConfig | None = None,
    *,
    name: str = "web_search",
    description: str = _DESCRIPTION,
) -> HostedTool[WebSearchConfig]:
    """A ``web_search`` hosted tool; its output is a
    :class:`~affordance_web_search.WebSearchResult` in ``PromptResponse.hosted_outputs[name]``."""
    return HostedTool(
        kind=WEB_SEARCH_KIND,
        name=name,
        description=description,
        config=WebSearchConfig() if config is None else config,
    )
