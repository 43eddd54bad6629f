"""``HostedToolSection``: a hosted-tool plugin's section — guidance text and its one tool."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from affordance import (
    HostedTool,
    HostedToolSection,
    MarkdownSection,
    PromptTemplate,
    SectionVisibility,
)


@dataclass(frozen=True, slots=True)
class LookupConfig:
    region: str = "eu"


class LookupSection(HostedToolSection[LookupConfig]):
    def __init__(
        self,
        config: LookupConfig = LookupConfig(),
        *,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        super().__init__(
            HostedTool("lookup", "lookup", "Look things up.", config),
            key="lookup",
            title="Lookup",
            template="You may look things up.",
            enabled=enabled,
            visibility=visibility,
            summary=summary,
        )


def _prompt(section: LookupSection) -> PromptTemplate[None]:
    task: MarkdownSection[None] = MarkdownSection(title="Task", template="Answer.")
    return PromptTemplate(name="p", sections=[task, section])


def test_it_renders_its_guidance_and_exposes_its_tool() -> None:
    section = LookupSection(LookupConfig("us"))

    rendered = _prompt(section).render()

    assert rendered.text.endswith("## 2 Lookup\nYou may look things up.")
    assert rendered.hosted_tools == (section.tool,)
    assert section.config == LookupConfig("us")


def test_its_tool_follows_the_sections_enablement_and_visibility() -> None:
    disabled = LookupSection(enabled=lambda: False)
    summarized = LookupSection(visibility=SectionVisibility.SUMMARY, summary="Lookups.")

    assert _prompt(disabled).render().hosted_tools == ()
    assert _prompt(summarized).render().hosted_tools == ()
