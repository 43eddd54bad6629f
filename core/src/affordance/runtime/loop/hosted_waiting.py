"""``HostedWaiting``: the approvals an evaluation's current turn waits for on hosted tools.

A provider may hold a hosted tool's call until the caller approves it (OpenAI's ``mcp`` tool:
an ``mcp_approval_request`` item). The turn's codecs find those
(:mod:`affordance.runtime.model.hosted_approvals`); this class keeps them while the run is
suspended, shows them as :class:`PendingConfirmation` values (``hosted_tool`` set) beside the
turn's destructive local calls, and, once answered, adds the codecs' answer items to the turn's
assistant message, so the next request carries them. Nothing here runs: the provider runs an
approved call on that next request. Like :class:`~affordance.runtime.loop.turn_calls.TurnCalls`
it is handed the evaluation's ``emit`` per call and never keeps it (no reference cycle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from affordance.errors import PromptEvaluationError
from affordance.runtime.model.connection import Model
from affordance.runtime.model.hosted_approvals import HostedApproval
from affordance.runtime.model.messages import AssistantMessage, Message
from affordance.runtime.model.turn import ProviderTurn
from affordance.runtime.record.confirmation import Confirmation, PendingConfirmation
from affordance.runtime.record.events import ConfirmationRequested, ConfirmationResolved
from affordance.tools.hosted import HostedTool

__all__ = ["HostedApprovalReader", "HostedWaiting"]

Emit = Callable[[object], None]


class HostedApprovalReader(Protocol):
    """What the runner offers for hosted approvals (an ``Evaluator`` does, through the codecs
    of its model): reading those a response waits for, and writing an answer's item."""

    @property
    def connection(self) -> Model: ...

    def hosted_approvals(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> tuple[HostedApproval, ...]: ...

    def hosted_approval_answer(
        self, approval: HostedApproval, approved: bool, message: str, *, prompt_name: str
    ) -> Mapping[str, Any]: ...


class HostedWaiting:
    """The hosted approvals of the current turn, and where its assistant message sits in the
    transcript (their answers join its provider items)."""

    __slots__ = ("_approvals", "_message_at", "_prompt_name", "_run_id")

    def __init__(self, *, prompt_name: str, run_id: str) -> None:
        self._prompt_name = prompt_name
        self._run_id = run_id
        self._approvals: tuple[HostedApproval, ...] = ()
        self._message_at = -1

    def __bool__(self) -> bool:
        return bool(self._approvals)

    def look(
        self,
        turn: ProviderTurn,
        declared: Sequence[HostedTool[Any]],
        runner: HostedApprovalReader,
        transcript: Sequence[Message],
        emit: Emit,
    ) -> None:
        """Keep the approvals ``turn`` waits for on the ``declared`` hosted tools; the turn's
        assistant message is the last of ``transcript``. An id shared by two approvals, or by
        an approval and a function call of the turn, is refused: an answer names one thing to
        run."""
        approvals = runner.hosted_approvals(turn.hosted_items, declared)
        if not approvals:
            return
        seen = {call.id for call in turn.tool_calls}
        for approval in approvals:
            if approval.call_id in seen:
                raise PromptEvaluationError(
                    f"the model's turn has more than one call or approval with the id "
                    f"{approval.call_id!r}; each needs its own id, so none of them was run",
                    prompt_name=self._prompt_name,
                    phase="response",
                    provider=runner.connection.name,
                )
            seen.add(approval.call_id)
        self._approvals = tuple(approvals)
        self._message_at = len(transcript) - 1
        for approval in self._approvals:
            request = approval.request
            emit(
                ConfirmationRequested(
                    self._prompt_name,
                    self._run_id,
                    request.call_id,
                    request.name,
                    dict(request.arguments),
                )
            )

    def call_ids(self) -> tuple[str, ...]:
        return tuple(approval.call_id for approval in self._approvals)

    def pending(self) -> tuple[PendingConfirmation, ...]:
        """The approvals, as the response shows them; ``params`` and ``arguments`` are both the
        call's arguments (a hosted call has no params type)."""
        return tuple(
            PendingConfirmation(
                approval.call_id,
                approval.request.name,
                dict(approval.request.arguments),
                dict(approval.request.arguments),
                hosted_tool=approval.tool.name,
            )
            for approval in self._approvals
        )

    def answer(
        self,
        confirmations: Mapping[str, Confirmation],
        transcript: list[Message],
        runner: HostedApprovalReader,
        emit: Emit,
    ) -> None:
        """Apply the caller's answers (already checked to fit): each approval's answer item,
        written by its codec, is added to the turn's assistant message, in approval order.
        Every item is written before anything changes, so a codec failing to write one leaves
        the run suspended as it was."""
        if not self._approvals:
            return
        answers: list[Mapping[str, Any]] = []
        for approval in self._approvals:
            answer = confirmations[approval.call_id]
            answers.append(
                runner.hosted_approval_answer(
                    approval, answer.approved, answer.message, prompt_name=self._prompt_name
                )
            )
        for approval in self._approvals:
            answer = confirmations[approval.call_id]
            emit(
                ConfirmationResolved(
                    self._prompt_name,
                    self._run_id,
                    approval.call_id,
                    approval.request.name,
                    answer.approved,
                    answer.message,
                )
            )
        turn = transcript[self._message_at]
        assert isinstance(turn, AssistantMessage)  # set by the evaluation when it waited
        transcript[self._message_at] = AssistantMessage(
            turn.text, turn.tool_calls, (*turn.provider_items, *answers), turn.provider
        )
        self._approvals = ()
        self._message_at = -1
