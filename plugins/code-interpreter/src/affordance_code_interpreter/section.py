"""``CodeInterpreterSection``: a section that tells the model it may run code, and lets it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.section import SectionVisibility
from affordance.tools.hosted import HostedTool
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.tool import code_interpreter_tool

__all__ = ["CodeInterpreterSection"]

_TEMPLATE = (
    "You can write and run code in a sandbox. Run code for arithmetic, data analysis and "
    "anything you would otherwise estimate, and report what it printed."
)


@dataclass(frozen=True, slots=True)
class _NoParams:
    """The section's params: none (its text has no placeholders)."""


class CodeInterpreterSection(MarkdownSection[_NoParams]):
    """Guidance for the model plus the ``code_interpreter`` hosted tool, exposed while the
    section is enabled and fully visible (like any section's tools).

    ``name`` is the hosted tool's name (the key of its output in ``hosted_outputs``);
    ``template`` replaces the guidance text.
    """

    def __init__(
        self,
        config: CodeInterpreterConfig | None = None,
        *,
        key: str = "code_interpreter",
        name: str = "code_interpreter",
        title: str = "Code Interpreter",
        template: str = _TEMPLATE,
        enabled: Callable[[], bool] | None = None,
        visibility: SectionVisibility = SectionVisibility.FULL,
        summary: str | None = None,
    ) -> None:
        self.tool: HostedTool[CodeInterpreterConfig] = code_interpreter_tool(config, name=name)
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
    def config(self) -> CodeInterpreterConfig:
        return self.tool.config
