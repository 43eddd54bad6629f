"""What a chat request gives back: the events its listener hears as it runs (:class:`ChatStarted`,
then the run's, as :data:`ChatEvent`), and at the end the :class:`ChatReply`, with each tool
call's :class:`ToolOutcome`; and how a run's events and response become them.

Kept apart from the service (:mod:`taskchat.chat`, which re-exports the types) so the shape of
what a request answers can be read without the request handling around it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import ClassVar, TypeAlias

from affordance import (
    PromptResponse,
    RefusalDelta,
    StreamEvent,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    is_declined,
)
from affordance.adapters import AssistantMessage, ToolResultMessage
from taskchat.conversations import PendingCall, PendingTurn
from taskchat.settled_runs import confirmation_text

__all__ = [
    "ChatEvent",
    "ChatListener",
    "ChatReply",
    "ChatStarted",
    "ToolOutcome",
    "renumbered",
    "reply_text",
    "tool_outcome",
]


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """One tool call of a chat request: ``message`` for people, ``content`` for the model;
    ``declined``: the user declined it, so it did not run (and ``success`` is false)."""

    call_id: str
    name: str
    success: bool
    message: str
    content: str
    declined: bool = False

    def as_message(self) -> ToolResultMessage:
        """The call's result as the transcript stores it."""
        return ToolResultMessage(self.call_id, self.name, self.content, not self.success)


@dataclass(frozen=True, slots=True)
class ChatReply:
    conversation_id: str
    reply: str
    tool_results: tuple[ToolOutcome, ...]
    pending_confirmations: tuple[PendingCall, ...]


@dataclass(frozen=True, slots=True)
class ChatStarted:
    """The request passed its checks and the work begins: every later failure is reported
    after the events (the streaming endpoint has started its stream by then).

    ``resumed``: the request answers pending confirmations.
    """

    kind: ClassVar[str] = "chat_started"
    conversation_id: str
    resumed: bool


ChatEvent: TypeAlias = ChatStarted | StreamEvent
"""What a listener hears, in order: ``ChatStarted``, then — for an answer to confirmations —
one ``ToolCallFinished`` per call of the suspended turn the service finishes, then the run's
stream events except ``RunFinished`` (the :class:`ChatReply` takes its place).

A durable run is heard once it has settled: ``ChatStarted``, ``RunStarted`` (its workflow id;
``resumed`` for answers), then, if it finished, one ``ToolCallFinished`` per call of the whole
run, or, if it waits, one ``ConfirmationRequired`` per held call."""

ChatListener = Callable[[ChatEvent], None]


def tool_outcome(event: ToolCallFinished) -> ToolOutcome:
    """The outcome a listener's ``ToolCallFinished`` reports."""
    result = event.result
    return ToolOutcome(
        event.call_id,
        event.name,
        result.success,
        result.message,
        result.model_text(),
        declined=is_declined(result),
    )


def renumbered(event: ChatEvent, turns_before: int) -> ChatEvent:
    """``event`` with its turn numbered after ``turns_before`` turns: a run that continues an
    answered turn counts its own turns from 1, and a client hears them after that turn's."""
    if turns_before and isinstance(
        event, (TextDelta, RefusalDelta, ToolCallStarted, ToolCallFinished, TurnFinished)
    ):
        return replace(event, turn=event.turn + turns_before)
    return event


def reply_text(response: PromptResponse[None], pending: PendingTurn | None) -> str:
    """The reply of a run in this process: its answer, or, when it waits on ``pending``, what
    the model said in that turn (else which calls need confirmation)."""
    if response.text:
        return response.text
    if pending is not None:
        turn = response.messages[-1]
        if isinstance(turn, AssistantMessage) and turn.text:
            return turn.text
        return confirmation_text(pending.calls)
    return ""
