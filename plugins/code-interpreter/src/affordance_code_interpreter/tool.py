"""``code_interpreter_tool()``: the hosted tool, ready to attach to any section."""

from __future__ import annotations

from affordance.tools import HostedTool
from affordance_code_interpreter.config import CodeInterpreterConfig

__all__ = ["CODE_INTERPRETER_KIND", "code_interpreter_tool"]

CODE_INTERPRETER_KIND = "code_interpreter"

_DESCRIPTION = "Write and run code in a sandbox to compute, analyse data or make files."


def code_interpreter_tool(
    config: CodeInterpreterConfig | None = None,
    *,
    name: str = "code_interpreter",
    description: str = _DESCRIPTION,
) -> HostedTool[CodeInterpreterConfig]:
    """A ``code_interpreter`` hosted tool; its output is a
    :class:`~affordance_code_interpreter.CodeInterpreterResult` in
    ``PromptResponse.hosted_outputs[name]``."""
    return HostedTool(
        kind=CODE_INTERPRETER_KIND,
        name=name,
        description=description,
        config=CodeInterpreterConfig() if config is None else config,
    )
