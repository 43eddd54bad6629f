"""``DurableRun``: a Temporal workflow that drives the core loop, the third driver.

The workflow runs the sans-IO ``Evaluation`` itself — rendering, validation, policy, the
confirmation gate, transcript bookkeeping are deterministic — and performs its actions as
activities: each ``SendRequest`` is one model activity, each call of a ``RunCalls`` one tool
activity (the calls of a turn run concurrently, as in ``aevaluate``). A run suspended for
confirmation waits durably for the answers (the ``confirm`` update, which takes answers only
for the calls pending at that moment), then resumes exactly as
``evaluate(..., confirmations=...)`` does. This module holds the workflow: its handlers and
the state its queries and updates read; ``_driver`` performs the evaluation's actions.

A prompt with sections whose tools are listed at render (an MCP server's) is listed first, by
one activity; the workflow renders those sections from that recorded listing for the whole run
(``PromptTemplate.with_listings``), so it never does I/O and a replay renders the same tools.
A prompt without such sections runs no such activity.

The workflow traces nothing itself: the trace context the run was started in
(``RunInput.trace``) is copied into every activity's input, where the activity joins it.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from affordance import PromptEvaluationError, deny
    from affordance.adapters import AssistantMessage, Message
    from affordance.runtime import Confirmation, PromptResponse
    from affordance.serde import ParseError
    from affordance_temporal._driver import Driver
    from affordance_temporal._failures import refused_update, run_failure
    from affordance_temporal._hosts import host_for
    from affordance_temporal.boundary import (
        Answers,
        CallData,
        ConfirmationData,
        ConfirmationRefusal,
        PendingData,
        RunInput,
        RunStatus,
        from_data,
        to_data,
    )
    from affordance_temporal.names import (
        CONFIRM_UPDATE,
        PENDING_QUERY,
        SETTLED_UPDATE,
        STATUS_QUERY,
        WORKFLOW_NAME,
    )
    from affordance_temporal.results import encode_calls, encode_response

__all__ = ["NO_ANSWER", "DurableRun"]

NO_ANSWER = "no answer came in time"
"""The reason the model reads for a call denied by ``RunOptions.confirmation_timeout``."""


@workflow.defn(name=WORKFLOW_NAME)
class DurableRun:
    """One evaluation of a registry prompt; its input and result are ``boundary`` envelopes."""

    def __init__(self) -> None:
        self._answers: dict[str, Confirmation] = {}
        self._decided: set[str] = set()
        self._pending: tuple[PendingData, ...] = ()
        self._done: tuple[CallData, ...] = ()
        self._transcript: tuple[Message, ...] = ()
        self._state = "running"
        self._turn = 0

    @workflow.run
    async def run(self, data: dict[str, Any]) -> dict[str, Any]:
        run_input = from_data(RunInput, data)
        try:
            response = await Driver(self, run_input, host_for(workflow.info().task_queue)).run()
        except PromptEvaluationError as error:
            raise run_failure(error) from None
        finally:
            self._state = "finished"
            self._pending = ()
        result = to_data(encode_response(run_input.prompt.name, response))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result

    @workflow.update(name=CONFIRM_UPDATE)
    def confirm(self, data: dict[str, Any]) -> None:
        """Answers for calls pending now: all are kept, or none (see :meth:`_acceptable`)."""
        for answer in self._acceptable(data):
            self._answers[answer.call_id] = Confirmation(answer.approved, answer.message)

    @confirm.validator
    def _check_confirm(self, data: dict[str, Any]) -> None:
        """Refused answers leave no trace: a rejected update is not written to the history."""
        self._acceptable(data)

    @workflow.query(name=PENDING_QUERY)
    def pending_confirmations(self) -> list[dict[str, Any]]:
        """The calls still waiting for an answer (empty unless the run waits)."""
        return [to_data(item) for item in self._unanswered()]

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> dict[str, Any]:
        return to_data(self._status())

    @workflow.update(name=SETTLED_UPDATE)
    async def settled(self) -> dict[str, Any]:
        """Returns once the run waits for answers or has finished: what a chat request awaits."""
        await workflow.wait_condition(self._is_settled)
        return to_data(self._status())

    # -- state shared with the driver ----------------------------------------------------------

    def at_turn(self, turn: int) -> None:
        """The driver sends the model request of ``turn``: the status shows it."""
        self._turn = turn

    def _acceptable(self, data: dict[str, Any]) -> tuple[ConfirmationData, ...]:
        """The answers in ``data`` if every one is for a call waiting for its answer at this
        moment, each once; otherwise a ``ConfirmationRefused`` failure naming the calls that
        are not pending and the ones that are. So an answer never waits for a call the model
        has not asked for yet: that call is shown as pending, as any other."""
        try:
            answers = from_data(Answers, data).answers
        except ParseError as error:
            raise refused_update(
                ConfirmationRefusal(problem=f"the answers do not parse: {error}")
            ) from None
        waiting = tuple(item.call_id for item in self._unanswered())
        ids = [answer.call_id for answer in answers]
        not_pending = tuple(dict.fromkeys(i for i in ids if i not in waiting))
        if not_pending:
            answered = tuple(i for i in not_pending if i in self._decided or i in self._answers)
            finished = self._state == "finished"
            raise refused_update(ConfirmationRefusal(not_pending, waiting, answered, finished))
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            problem = f"more than one answer for the call(s) {', '.join(twice)}"
            raise refused_update(ConfirmationRefusal(pending=waiting, problem=problem))
        return answers

    def _unanswered(self) -> tuple[PendingData, ...]:
        return tuple(item for item in self._pending if item.call_id not in self._answers)

    def _is_settled(self) -> bool:
        return self._state == "finished" or bool(self._unanswered())

    def _status(self) -> RunStatus:
        if self._state == "finished":
            return RunStatus("finished", self._turn)
        unanswered = self._unanswered()
        if not unanswered:
            return RunStatus("running", self._turn)
        return RunStatus(
            "waiting", self._turn, unanswered, _said(self._transcript), self._done, self._transcript
        )

    async def wait_for_answers(
        self, suspended: PromptResponse[Any], timeout: float | None
    ) -> dict[str, Confirmation]:
        """Wait durably until every call ``suspended`` waits on is answered (or ``timeout``
        passes: the unanswered ones are denied), then hand the answers to
        ``Evaluation.resume``. Meanwhile the status shows what ``suspended`` holds: the
        pending calls, the calls run so far and the transcript."""
        pending = suspended.pending_confirmations
        self._pending = tuple(
            PendingData(item.call_id, item.name, dict(item.arguments)) for item in pending
        )
        self._done = encode_calls(suspended.tool_results)
        self._transcript = suspended.messages
        ids = [item.call_id for item in pending]
        with suppress(asyncio.TimeoutError):
            await workflow.wait_condition(
                lambda: all(call_id in self._answers for call_id in ids), timeout=timeout
            )
        answers: dict[str, Confirmation] = {}
        for call_id in ids:
            answer = self._answers.pop(call_id, None)
            answers[call_id] = answer if answer is not None else deny(NO_ANSWER)
        self._decided.update(ids)
        self._answers.clear()  # only pending calls are answered: nothing should be left
        self._pending = ()
        self._done = ()
        self._transcript = ()
        return answers


def _said(transcript: tuple[Message, ...]) -> str | None:
    """The text of the model's last turn: the one that asked for the pending calls."""
    last = transcript[-1] if transcript else None
    return last.text if isinstance(last, AssistantMessage) and last.text else None
