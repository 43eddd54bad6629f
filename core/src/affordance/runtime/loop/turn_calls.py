"""``TurnCalls``: the tool calls of one model turn, from preparing them to their tool messages.

Each call keeps its place in call order, whatever order the calls finish in, and gets exactly
one result: the executor prepares it (lookup, policy, validation, the confirmation gate, the
cache); a call after a terminal tool is skipped; a destructive call waits for the caller's
answer; the rest are handed to the driver to run. Each outcome is logged and published
(``ToolInvoked``) once, as soon as it is known; closing the turn turns the outcomes into the
tool messages and :class:`ToolCallResult` values of the evaluation. The turn's loop around it
— suspending, resuming, what comes next — is :class:`~affordance.runtime.loop.Evaluation`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from affordance.errors import PromptEvaluationError
from affordance.prompt.disclosure import disclosure_request
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls import failures
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.calls.nested import NestedAnswers, NestedWaiting
from affordance.runtime.calls.prepared import CallOutcome, PreparedCall
from affordance.runtime.model.messages import Message, ToolCall, ToolResultMessage
from affordance.runtime.record.confirmation import (
    Confirmation,
    PendingConfirmation,
    arguments_of,
    declined_result,
)
from affordance.runtime.record.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    ToolCallDenied,
)
from affordance.runtime.record.response import ToolCallResult
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.attachments import Attachment

__all__ = ["TurnCalls", "refuse_shared_ids"]

ToRun = tuple[tuple[PreparedCall, ToolContext], ...]
Emit = Callable[[object], None]


def refuse_shared_ids(calls: Sequence[ToolCall], prompt_name: str, provider: str) -> None:
    """A call id is the unit of approval: an answer names one call by its id, so a turn
    in which two calls share an id is refused before any of them runs."""
    seen: set[str] = set()
    for call in calls:
        if call.id in seen:
            raise PromptEvaluationError(
                f"the model's turn has more than one tool call with the id {call.id!r}; "
                "each call needs its own id, so none of them was run",
                prompt_name=prompt_name,
                phase="response",
                provider=provider,
            )
        seen.add(call.id)


class _Slot:
    """The result position of one call of the turn. A call waits for the caller either itself
    (``pending``: a destructive call) or through its nested run (``nested``: the call ran, and
    a call inside its nested run waits; ``nested_call`` is the call to run again)."""

    # Not slotted: what a slot never sets is read from these class defaults, so a new slot
    # sets nothing (one per call of every turn).
    outcome: CallOutcome | None = None
    pending: PreparedCall | None = None
    nested: NestedWaiting | None = None
    nested_call: PreparedCall | None = None
    context: ToolContext | None = None
    content: str | None = None  # the tool message, set once the outcome is published


class TurnCalls:
    """The calls of an evaluation's current turn; :meth:`prepare` starts each turn's. ``emit``
    publishes an event the evaluation's way; ``context`` builds a call's :class:`ToolContext`.
    Both are passed to each method, never kept: holding the evaluation's own methods would make
    every evaluation a reference cycle, left for the garbage collector."""

    __slots__ = (
        "_executor",
        "_prompt",
        "_rendered",
        "_run_id",
        "_slot_of",
        "_slots",
        "_terminal",
        "_tools",
        "_turn",
    )

    def __init__(self, executor: ToolExecutor, prompt: PromptTemplate[Any], run_id: str) -> None:
        self._executor = executor
        self._prompt = prompt
        self._run_id = run_id
        self._slots: list[_Slot] = []
        self._slot_of: dict[int, _Slot] = {}
        self._terminal: PreparedCall | None = None
        self._turn = 0
        self._tools: Mapping[str, Tool[Any, Any]] = {}
        self._rendered: RenderedPrompt[Any] | None = None

    def prepare(
        self,
        calls: Sequence[ToolCall],
        *,
        turn: int,
        tools: Mapping[str, Tool[Any, Any]],
        rendered: RenderedPrompt[Any],
        emit: Emit,
        context: Callable[[str], ToolContext],
    ) -> ToRun:
        """Start turn ``turn`` (``tools``: the ones ``rendered`` exposes) with ``calls`` and
        prepare them in order; the ones the driver should run now (the others are answered
        already, skipped after a terminal tool, or wait for confirmation)."""
        self._turn, self._tools, self._rendered = turn, tools, rendered
        self._slots = slots = []
        self._slot_of = slot_of = {}
        self._terminal = terminal = None
        to_run: list[tuple[PreparedCall, ToolContext]] = []
        for call in calls:
            slot = _Slot()
            slots.append(slot)
            slot_of[id(call)] = slot
            if terminal is not None:
                skipped = failures.skipped_after_terminal(call.name, terminal.call.name)
                slot.outcome = CallOutcome(PreparedCall(call, tools.get(call.name)), skipped)
                continue
            prepared = self._executor.prepare(call, tools)
            if prepared.result is not None:
                slot.outcome = CallOutcome(prepared, prepared.result)
                if prepared.denial is not None:
                    emit(
                        ToolCallDenied(
                            self._prompt.name, self._run_id, call.id, call.name, prepared.denial
                        )
                    )
                continue
            slot.context = call_context = context(call.id)
            if prepared.needs_confirmation:
                slot.pending = prepared
                emit(
                    ConfirmationRequested(
                        self._prompt.name, self._run_id, call.id, call.name, prepared.params
                    )
                )
                continue
            if prepared.tool is not None and prepared.tool.terminal:
                self._terminal = terminal = prepared
            to_run.append((prepared, call_context))
        return tuple(to_run)

    def record(self, outcomes: Sequence[CallOutcome], emit: Emit) -> bool:
        """Take the outcomes the driver brings and publish every new one, in call order;
        whether calls still wait for confirmation."""
        for outcome in outcomes:
            slot = self._slot_of.get(id(outcome.prepared.call))
            if slot is None:
                raise RuntimeError("on_outcomes got an outcome for a call of another turn")
            result = outcome.result
            if result.success and isinstance(result.value, NestedWaiting):
                self._hold_nested(slot, outcome.prepared, result.value, emit)
                continue
            slot.outcome = outcome
        waiting = False
        for slot in self._slots:
            if slot.pending is not None or slot.nested is not None:
                waiting = True
            elif slot.outcome is None:
                raise RuntimeError("on_outcomes is missing the outcome of a call")
        for slot in self._slots:
            if slot.outcome is not None and slot.content is None:
                slot.content = self._publish(slot.outcome, emit)
        return waiting

    def _hold_nested(
        self, slot: _Slot, prepared: PreparedCall, waiting: NestedWaiting, emit: Emit
    ) -> None:
        """Hold a call whose nested run waits: its nested calls wait in this run too."""
        slot.outcome = None
        slot.nested, slot.nested_call = waiting, prepared
        for nested in waiting.pending:
            emit(
                ConfirmationRequested(
                    self._prompt.name, self._run_id, nested.call_id, nested.name, nested.params
                )
            )

    def pending_call_ids(self) -> tuple[str, ...]:
        ids: list[str] = []
        for slot in self._slots:
            if slot.pending is not None:
                ids.append(slot.pending.call.id)
            elif slot.nested is not None:
                ids.extend(nested.call_id for nested in slot.nested.pending)
        return tuple(ids)

    def pending(self) -> tuple[PendingConfirmation, ...]:
        """The calls waiting for confirmation, as the response shows them; a nested run's
        calls name the call of this run that holds them (``via``)."""
        shown: list[PendingConfirmation] = []
        for slot in self._slots:
            if slot.pending is not None:
                call, params = slot.pending.call, slot.pending.params
                shown.append(PendingConfirmation(call.id, call.name, params, arguments_of(params)))
            elif slot.nested is not None and slot.nested_call is not None:
                via = slot.nested_call.call.id
                shown.extend(dataclasses.replace(p, via=via) for p in slot.nested.pending)
        return tuple(shown)

    def answer(self, confirmations: Mapping[str, Confirmation], emit: Emit) -> ToRun:
        """Apply the caller's answers (already checked to fit) to the waiting calls: a denied
        call gets its declined result; an approved one is prepared again, confirmed, and is
        among the calls returned to run."""
        tools = self._tools
        to_run = [
            self._answer_nested(slot, confirmations, emit)
            for slot in self._slots
            if slot.nested is not None
        ]
        for slot in [slot for slot in self._slots if slot.pending is not None]:
            prepared, context = slot.pending, slot.context
            assert prepared is not None
            assert context is not None
            slot.pending = None
            call = prepared.call
            answer = confirmations[call.id]
            emit(
                ConfirmationResolved(
                    self._prompt.name,
                    self._run_id,
                    call.id,
                    call.name,
                    answer.approved,
                    answer.message,
                )
            )
            if not answer.approved:
                slot.outcome = CallOutcome(prepared, declined_result(call.name, answer.message))
                continue
            confirmed = self._executor.prepare(call, tools, confirmed=True)
            if confirmed.result is not None:
                slot.outcome = CallOutcome(confirmed, confirmed.result)
            else:
                to_run.append((confirmed, context))
        return tuple(to_run)

    def _answer_nested(
        self, slot: _Slot, confirmations: Mapping[str, Confirmation], emit: Emit
    ) -> tuple[PreparedCall, ToolContext]:
        """The call to run again with the answers to its nested run's calls."""
        waiting, prepared, context = slot.nested, slot.nested_call, slot.context
        assert waiting is not None
        assert prepared is not None
        assert context is not None
        slot.nested = slot.nested_call = None
        answers = {nested.call_id: confirmations[nested.call_id] for nested in waiting.pending}
        for nested in waiting.pending:
            answer = answers[nested.call_id]
            emit(
                ConfirmationResolved(
                    self._prompt.name,
                    self._run_id,
                    nested.call_id,
                    nested.name,
                    answer.approved,
                    answer.message,
                )
            )
        again = dataclasses.replace(context, nested_answers=NestedAnswers(waiting.state, answers))
        return prepared, again

    def close(
        self,
        transcript: list[Message],
        results: list[ToolCallResult],
        admit: Callable[[object], tuple[tuple[Attachment, ...], str]] | None = None,
    ) -> ToolResult[Any] | None:
        """Append the turn's tool messages to ``transcript`` and its results to ``results``, in
        call order; the result of the terminal call, when one ran. ``admit`` decides which of a
        result's attachments its message carries and what the model is told of the others."""
        terminal_result = None
        for slot in self._slots:
            outcome, content = slot.outcome, slot.content
            assert outcome is not None
            assert content is not None
            prepared, result = outcome.prepared, outcome.result
            attachments = result.attachments
            if type(attachments) is not tuple or attachments:  # a handler's: anything at all
                kept, note = admit(attachments) if admit is not None else ((), "")
                transcript.append(
                    ToolResultMessage(
                        prepared.call.id,
                        prepared.call.name,
                        content + note,
                        not result.success,
                        kept,
                    )
                )
            else:
                transcript.append(
                    ToolResultMessage(
                        prepared.call.id, prepared.call.name, content, not result.success
                    )
                )
            results.append(ToolCallResult(prepared.call, result, prepared.params, self._turn))
            if self._terminal is not None and prepared is self._terminal:
                terminal_result = result
        self._slots = []
        return terminal_result

    def _publish(self, outcome: CallOutcome, emit: Emit) -> str:
        """Log the outcome, publish its ``ToolInvoked``, and return the tool message text."""
        prepared = outcome.prepared
        self._executor.finish(outcome, run_id=self._run_id, turn=self._turn)
        rendered_prompt = self._rendered
        assert rendered_prompt is not None  # set by prepare, before any outcome
        invoked = outcome.invoked(
            self._prompt.name,
            self._run_id,
            self._turn,
            disclosure=disclosure_request(
                prepared.call.name, prepared.params, self._prompt, rendered_prompt
            ),
        )
        emit(invoked)
        return outcome.result.model_text(invoked.rendered_output)
