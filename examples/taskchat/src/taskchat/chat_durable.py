"""A chat request's run on Temporal (``--temporal``), as :class:`~taskchat.chat.ChatService`
drives it through a :class:`~taskchat.durable.DurableAgent`: start the run answering a message
and wait until it settles, or signal the answers to the run a conversation waits on; then read
the settled run as the listener's events and what to store.

The listener hears a durable run once it has settled, not as it happens. This module does not
import ``temporalio`` (``taskchat.durable`` does): the service imports it with or without the
flag.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from affordance import ConfirmationRequired, RunStarted, StreamEvent, ToolCallFinished
from affordance.adapters import Message
from taskchat.chat_errors import ModelTimeoutError
from taskchat.chat_replies import tool_outcome
from taskchat.conversations import PendingCall, PendingTurn
from taskchat.prompt import AssistantContext
from taskchat.settled_runs import SettledRun, confirmation_text, uninterrupted
from taskchat.suspended_turns import Answer

if TYPE_CHECKING:  # the durable module imports temporalio: only with --temporal
    from affordance_temporal.chat import ChatTurn
    from taskchat.durable import DurableAgent

__all__ = ["DurableRuns"]

T = TypeVar("T")


class DurableRuns:
    """The runs of one service's chat requests on Temporal, each request given ``deadline``
    seconds to see its run reply or wait for confirmations."""

    def __init__(self, durable: DurableAgent, *, prompt_name: str, deadline: float | None) -> None:
        self._durable = durable
        self._prompt_name = prompt_name
        self._deadline = deadline

    async def run(
        self,
        conversation_id: str,
        context: AssistantContext,
        messages: Sequence[Message],
        heard: Callable[[StreamEvent], None],
    ) -> SettledRun:
        """The run answering ``messages`` on Temporal, until it replied or waits.

        A request that stops first (its client left, the deadline passed) cancels the run, so
        that, as in the process, no run of a new message outlives its request."""
        durable = self._durable
        workflow_id = durable.workflow_id(conversation_id, messages)
        heard(RunStarted(self._prompt_name, workflow_id))
        try:  # a start under way finishes first, so that the cancel below finds the run
            turn = await self._within_deadline(durable.turn(conversation_id, messages, context))
        except (asyncio.CancelledError, ModelTimeoutError):
            await uninterrupted(durable.abandon(workflow_id))
            raise
        return _settled(turn, heard)

    async def resume(
        self,
        pending: PendingTurn,
        reason: str,
        confirmations: Mapping[str, Answer],
        heard: Callable[[StreamEvent], None],
    ) -> SettledRun:
        """Signal the answers to the durable run ``pending`` waits on, until it replied or
        waits again. A request that stops after its signals leaves the run going (and the
        pending turn stored): answering again collects the run (the first answers stand)."""
        heard(RunStarted(self._prompt_name, pending.run_id, resumed=True))
        turn = await self._within_deadline(
            self._durable.answer(pending.run_id, confirmations, reason)
        )
        return _settled(turn, heard, pending)

    async def _within_deadline(self, work: Coroutine[Any, Any, T]) -> T:
        """``work``, given ``deadline`` seconds (a durable run's wait; the run in the process
        has the deadline of its own)."""
        try:
            return await asyncio.wait_for(work, self._deadline)
        except asyncio.TimeoutError:
            raise ModelTimeoutError("the assistant did not finish in time") from None


def _settled(
    turn: ChatTurn, heard: Callable[[StreamEvent], None], reported: PendingTurn | None = None
) -> SettledRun:
    """A settled durable run's events and what to store: the run's messages not stored yet,
    and while it waits a durable pending turn that records the calls reported and the messages
    stored so far. Each call is heard, and each message stored, once, by the first request
    that sees it: ``reported`` is the pending turn an answering request resumes."""
    done = {message.call_id for message in reported.settled} if reported is not None else set()
    stored = reported.stored if reported is not None else 0
    response = turn.response
    results = response.tool_results if response is not None else turn.tool_results
    finished = [ToolCallFinished(r.call.id, r.name, r.result, r.turn) for r in results]
    for event in finished:
        if event.call_id not in done:
            heard(event)
    if response is not None:
        return SettledRun(response.messages[stored:], None, response.text or "")
    calls = tuple(PendingCall(p.call_id, p.name, dict(p.arguments)) for p in turn.pending)
    for call in calls:
        heard(ConfirmationRequired(call.call_id, call.name, call.arguments))
    pending = PendingTurn(
        run_id=turn.workflow_id,
        turn=0,
        calls=calls,
        settled=tuple(tool_outcome(event).as_message() for event in finished),
        durable=True,
        stored=len(turn.messages),
    )
    return SettledRun(turn.messages[stored:], pending, turn.said or confirmation_text(calls))
