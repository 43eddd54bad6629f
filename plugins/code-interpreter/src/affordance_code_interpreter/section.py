"""``CodeInterpreterSection``: a section that tells the model it may run code, and lets it."""

from __future__ import annotations

from collections.abc import Callable

from affordance.prompt import HostedToolSection, SectionVisibility
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.tool import code_interpreter_tool

__all__ = ["CodeInterpreterSection"]

_TEMPLATE = (
    "You can write and run code in a sandbox. Run code for arithmetic, data analysis and "
    "anything you would otherwise estimate, and report what it printed."
)


class CodeInterpreterSection(HostedToolSection[CodeInterpreterConfig]):
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
        super().__init__(
            code_interpreter_tool(config, name=name),
            key=key,
            title=title,
            template=template,
            enabled=enabled,
            visibility=visibility,
            summary=summary,
        )
