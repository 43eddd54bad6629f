"""``WebSearchSection``: a section that tells the model it may search, and lets it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.section import SectionVisibility
from affordance.tools.hosted import HostedTool
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.tool import web_search_tool

__all__ = ["WebSearchSection"]

_TEMPLATE = (
    "You can search the web for current information. Search when the answer depends on "
    "recent events or facts you are unsure of, and cite the sources you use."
)


@dataclass(frozen=True, slots=True)
class _NoParams:
    """The section's params: none (its text has no placeholders)."""


class WebSearchSection(MarkdownSection[_NoParams]):
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
        self.tool: HostedTool[WebSearchConfig] = web_search_tool(config, name=name)
        super().__init__(
            title=title,
            key=key,
            template=template,
            enabled=enabled,
            default_params=_NoParams(),
            hosted_tools=(self.tool,),
            visibility=visibility,
            summary=summary,
        )

    @property
    def config(self) -> WebSearchConfig:
        return self.tool.config
