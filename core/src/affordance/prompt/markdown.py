"""``MarkdownSection``: a section whose body is a ``$placeholder`` template."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from affordance.prompt.section import Section, SectionVisibility
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

__all__ = ["MarkdownSection"]

ParamsT = TypeVar("ParamsT")


class MarkdownSection(Section[ParamsT]):
    """Markdown text with ``$name`` / ``${name}`` placeholders filled from the params dataclass.

    The template is dedented and stripped, and every placeholder is checked against the params
    dataclass when the section is built.
    """

    def __init__(
        self,
        *,
        title: str,
        template: str,
        key: str | None = None,
        children: Sequence[Section[Any]] = (),
        enabled: Callable[[ParamsT], bool] | Callable[[], bool] | None = None,
        default_params: ParamsT | None = None,
        tools: Sequence[Tool[Any, Any]] = (),
        hosted_tools: Sequence[HostedTool[Any]] = (),
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
        summary_suffix: str | None = None,
        params_type: type[ParamsT] | None = None,
        accepts_overrides: bool = True,
    ) -> None:
        super().__init__(
            title=title,
            key=key,
            children=children,
            enabled=enabled,
            default_params=default_params,
            tools=tools,
            hosted_tools=hosted_tools,
            visibility=visibility,
            summary=summary,
            summary_suffix=summary_suffix,
            params_type=params_type,
            accepts_overrides=accepts_overrides,
        )
        self.template = template
        self._template = self._compile("template", template)

    def render_body(self, params: ParamsT | None) -> str:
        template = self._template
        if params is None and template.names:
            return self.render_template(template, params)  # raises: it says what is missing
        return template.substitute(params)

    def template_source(self) -> str:
        return self._template.source
