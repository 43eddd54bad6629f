"""``HostedToolSection``: guidance for the model and one hosted tool, in one section.

What a hosted-tool plugin's section is (``WebSearchSection``, ``CodeInterpreterSection``): a
fixed text telling the model when to use the capability, and the tool itself, exposed while
the section is enabled and fully visible, like any section's tools. The text takes no params.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.section import SectionVisibility
from affordance.tools.hosted import HostedTool, HostedToolConfig

__all__ = ["HostedToolSection"]

ConfigT = TypeVar("ConfigT", bound=HostedToolConfig)


@dataclass(frozen=True, slots=True)
class _NoParams:
    """The section's params: none (its text has no placeholders)."""


class HostedToolSection(MarkdownSection[_NoParams], Generic[ConfigT]):
    """``template`` (guidance, no placeholders) and ``tool``, keyed ``key`` in the prompt."""

    def __init__(
        self,
        tool: HostedTool[ConfigT],
        *,
        key: str,
        title: str,
        template: str,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        self.tool = tool
        super().__init__(
            title=title,
            key=key,
            template=template,
            enabled=enabled,
            default_params=_NoParams(),
            params_type=_NoParams,  # not ConfigT, which subclasses name in their bases
            hosted_tools=(tool,),
            visibility=visibility,
            summary=summary,
        )

    @property
    def config(self) -> ConfigT:
        return self.tool.config
