"""``Suspension``: a run that waits for the caller's answers, and its resumption with them.

A turn whose destructive calls wait for confirmation (``turn_calls``), or whose hosted tools
wait for approval (``hosted_waiting``), suspends the run: it is kept in its session by its
pending call ids — never one id in two runs — and returns a response listing the pending
confirmations. ``evaluate(..., confirmations=...)`` finds it again (``resumption``) and resumes
it here: the answers must fit its pending calls exactly; approved calls then run, on the
runner and in the kind of run (sync or async) resuming it.

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_WaitingRun`` names what these methods read and write of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from affordance.errors import PromptEvaluationError
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.prepared import CallOutcome
from affordance.runtime.loop.actions import Action, RunCalls
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.loop.hosted_waiting import HostedWaiting
from affordance.runtime.loop.turn_calls import TurnCalls
from affordance.runtime.model.messages import Message
from affordance.runtime.record.confirmation import (
    Confirmation,
    PendingConfirmation,
    answer_problems,
)
from affordance.runtime.record.session import Session

__all__ = ["Suspension"]


class _WaitingRun(Protocol):
    """The evaluation as its suspension sees it."""

    adapter: EvaluationRunner
    prompt: PromptTemplate[Any]
    session: Session
    asynchronous: bool
    _calls: TurnCalls
    _hosted: HostedWaiting | None
    _transcript: list[Message]

    def pending_call_ids(self) -> tuple[str, ...]: ...

    def on_outcomes(self, outcomes: Sequence[CallOutcome]) -> Action: ...

    def _respond(
        self, *, text: str | None, finish_reason: str, pending: tuple[PendingConfirmation, ...]
    ) -> Action: ...

    def _emit(self, event: object) -> None: ...


class Suspension:
    """An evaluation suspended in its session for the caller's answers, and resumed."""

    __slots__ = ()

    def _suspend(self: _WaitingRun) -> Action:
        taken = self.session.suspend(self)
        if taken:
            raise PromptEvaluationError(
                f"calls {', '.join(taken)} wait for an answer in another evaluation of this "
                "session; an answer must name one call, so this evaluation cannot wait too "
                "(answer the other one first, or use a session per conversation)",
                prompt_name=self.prompt.name,
                phase="confirm",
                provider=self.adapter.connection.name,
            )
        pending = self._calls.pending()
        if self._hosted is not None:
            pending = (*pending, *self._hosted.pending())
        return self._respond(text=None, finish_reason="confirmation_required", pending=pending)

    def resume(self: _WaitingRun, confirmations: Mapping[str, Confirmation]) -> Action:
        """Continue a suspended evaluation with the caller's answers for its pending calls."""
        problems = answer_problems(self.pending_call_ids(), confirmations)
        if problems:
            raise PromptEvaluationError(
                f"confirmations do not fit the pending calls ({problems})",
                prompt_name=self.prompt.name,
                phase="confirm",
            )
        if self._hosted is not None:
            self._hosted.answer(confirmations, self._transcript, self.adapter, self._emit)
        self.session.release(self)
        to_run = self._calls.answer(confirmations, self._emit)
        if to_run:
            # the calls' contexts were built before the run waited: the runner and the kind of
            # run resuming it are this one's
            return RunCalls(
                tuple(
                    (
                        prepared,
                        dataclasses.replace(
                            context, adapter=self.adapter, asynchronous=self.asynchronous
                        ),
                    )
                    for prepared, context in to_run
                )
            )
        return self.on_outcomes(())

    def pending_call_ids(self: _WaitingRun) -> tuple[str, ...]:
        if self._hosted is None:
            return self._calls.pending_call_ids()
        return (*self._calls.pending_call_ids(), *self._hosted.call_ids())
