"""``NoModelRunner``: the ``ToolContext.adapter`` of a call served over MCP without an adapter.

A tool handler may evaluate a nested prompt through ``context.adapter`` (its evaluate API, the
``Runner`` protocol). A server started with no adapter has no model to do that with, so its
handlers get this runner, which refuses every evaluation with an error that says how to give
the server one (``serve(..., adapter=...)``).
"""

from __future__ import annotations

from typing import Any, NoReturn

from affordance import PromptTemplate

__all__ = ["NoModelError", "NoModelRunner"]


class NoModelError(RuntimeError):
    """A served tool asked to evaluate a prompt, and the server has no model to do it with."""


class NoModelRunner:
    """A ``Runner`` whose every evaluation raises :class:`NoModelError` naming the prompt.

    One refusal answers all four entry points: it takes whatever they are given and never
    returns, which fits each of their signatures (``affordance.runtime.Runner``)."""

    def _refuse(self, prompt: PromptTemplate[Any], *params: Any, **options: Any) -> NoReturn:
        _refuse(prompt)

    evaluate = aevaluate = stream = astream = _refuse


def _refuse(prompt: PromptTemplate[Any]) -> NoReturn:
    raise NoModelError(
        f"cannot evaluate prompt {prompt.name!r}: this MCP server has no model; "
        "start it with serve(..., adapter=...) to let its tools evaluate prompts"
    )
