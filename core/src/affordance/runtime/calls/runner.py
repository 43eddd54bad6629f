"""``Runner``: what a tool handler can do with ``context.adapter`` — evaluate another prompt.

The runner running a call is an :class:`~affordance.runtime.loop.Evaluator` (every provider
adapter is one); a handler sees it through this protocol, its evaluate API, so a nested prompt
runs with the same provider, session and bus as the outer one. The protocol keeps this room
below the loop: tool calls need the runner's API, not the class that implements it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from affordance.clock import Deadline
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.section import SectionVisibility
    from affordance.prompt.template import PromptTemplate
    from affordance.runtime.model.compaction import HistoryHook
    from affordance.runtime.model.limits import UsageLimits
    from affordance.runtime.model.messages import Message
    from affordance.runtime.record.bus import EventBus
    from affordance.runtime.record.confirmation import Confirmation
    from affordance.runtime.record.conversation import ConversationHandle
    from affordance.runtime.record.response import PromptResponse
    from affordance.runtime.record.session import Session
    from affordance.runtime.record.streams import AsyncEventStream, EventStream

__all__ = ["Runner"]

OutputT = TypeVar("OutputT")


class Runner(Protocol):
    """The evaluate API: ``evaluate``, ``aevaluate``, ``stream`` and ``astream`` (see
    :class:`~affordance.runtime.loop.Evaluator` for what each argument does)."""

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
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> PromptResponse[OutputT]: ...

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
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> PromptResponse[OutputT]: ...

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
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> EventStream: ...

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
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> AsyncEventStream: ...
