"""``CodeInterpreterSection``: a section that tells the model it may run code, and lets it."""

from __future__ import annotations

from affordance.prompt import HostedKindSection
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.plugin import CODE_INTERPRETER

__all__ = ["CodeInterpreterSection"]


class CodeInterpreterSection(HostedKindSection[CodeInterpreterConfig]):
    """Guidance for the model plus the ``code_interpreter`` hosted tool, exposed while the
    section is enabled and fully visible (like any section's tools).

    ``CodeInterpreterSection(config=None, *, key="code_interpreter", name="code_interpreter",
    title="Code Interpreter", template=..., enabled=None, visibility=FULL, summary=None)``:
    ``name`` is the hosted tool's name (the key of its output in ``hosted_outputs``);
    ``template`` replaces the guidance text.
    """

    hosted_kind = CODE_INTERPRETER
