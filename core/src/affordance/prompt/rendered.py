"""``RenderedPrompt``: the text and the tools a prompt exposes for one evaluation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._frozen import frozen
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.prompt.overrides.applied import SkippedOverride
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.section import SectionVisibility

__all__ = ["RenderedPrompt"]

OutputT = TypeVar("OutputT")


@frozen
class RenderedPrompt(Generic[OutputT]):
    """Markdown text plus the tools of the enabled, fully visible sections, in order.

    ``summarized`` lists the sections shown as summaries (what ``open_sections`` may open);
    ``visibility_overrides`` are the overrides this render applied; ``skipped_overrides`` the
    prompt overrides it was given but did not apply (stale, unknown, refused or invalid).
    """

    text: str
    tools: tuple[Tool[Any, Any], ...] = ()
    hosted_tools: tuple[HostedTool[Any], ...] = ()
    output_type: Any = None
    summarized: tuple[SectionPath, ...] = ()
    visibility_overrides: Mapping[SectionPath, SectionVisibility] = field(default_factory=dict)
    skipped_overrides: tuple[SkippedOverride, ...] = ()

    @property
    def tool_param_descriptions(self) -> Mapping[str, Mapping[str, str]]:
        """Per tool, the description of each documented params field, as the model is told it:
        a prompt override's where one applies (``affordance.prompt.overrides``)."""
        return {tool.name: tool.param_descriptions for tool in self.tools}

    def tool(self, name: str) -> Tool[Any, Any] | None:
        """The exposed tool called ``name``, if any."""
        for candidate in self.tools:
            if candidate.name == name:
                return candidate
        return None
