"""``NoModelRunner``: the ``ToolContext.adapter`` of a call served over MCP without an adapter.

A tool handler may evaluate a nested prompt through ``context.adapter`` (its evaluate API, the
``Runner`` protocol). A server started with no adapter has no model to do that with, so its
handlers get this runner, which refuses every evaluation with an error that says how to give
the server one (``serve(..., adapter=...)``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from affordance import (
    AsyncEventStream,
    Confirmation,
    EventBus,
    EventStream,
    PromptResponse,
    PromptTemplate,
    SectionPath,
    SectionVisibility,
    Session,
)
from affordance.clock import Deadline
from affordance.runtime import Message

__all__ = ["NoModelError", "NoModelRunner"]

OutputT = TypeVar("OutputT")


class NoModelError(RuntimeError):
    """A served tool asked to evaluate a prompt, and the server has no model to do it with."""


class NoModelRunner:
    """A ``Runner`` whose every evaluation raises :class:`NoModelError` naming the prompt."""

    def evaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> PromptResponse[OutputT]:
        _refuse(prompt)

    async def aevaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> PromptResponse[OutputT]:
        _refuse(prompt)

    def stream(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> EventStream:
        _refuse(prompt)

    def astream(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
    ) -> AsyncEventStream:
        _refuse(prompt)


def _refuse(prompt: PromptTemplate[Any]) -> NoReturn:
    raise NoModelError(
        f"cannot evaluate prompt {prompt.name!r}: this MCP server has no model; "
        "start it with serve(..., adapter=...) to let its tools evaluate prompts"
    )
