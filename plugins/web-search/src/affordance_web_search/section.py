"""``WebSearchSection``: a section that tells the model it may search, and lets it."""

from __future__ import annotations

from collections.abc import Callable

from affordance.prompt import HostedToolSection, SectionVisibility
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.tool import web_search_tool

__all__ = ["WebSearchSection"]

_TEMPLATE = (
    "You can search the web for current information. Search when the answer depends on "
    "recent events or facts you are unsure of, and cite the sources you use."
)


class WebSearchSection(HostedToolSection[WebSearchConfig]):
    """Guidance for the model plus the ``web_search`` hosted tool, exposed while the section is
    enabled and fully visible (like any section's tools).

    ``name`` is the hosted tool's name (the key of its output in ``hosted_outputs``);
    ``template`` replaces the guidance text.
    """

    def __init__(
        self,
        config: WebSearchConfig | None = None,
        *,
        key: str = "web_search",
        name: str = "web_search",
        title: str = "Web Search",
        template: str = _TEMPLATE,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        super().__init__(
            web_search_tool(config, name=name),
            key=key,
            title=title,
            template=template,
            enabled=enabled,
            visibility=visibility,
            summary=summary,
        )
