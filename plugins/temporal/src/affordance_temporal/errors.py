"""Errors of durable runs, and their names as Temporal failure types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from affordance import PromptEvaluationError
from affordance.errors import AffordanceError

__all__ = [
    "CONFIRMATION_REFUSED",
    "EVALUATION_FAILURE",
    "PROVIDER_UNAVAILABLE",
    "REGISTRY_MISMATCH",
    "ConfirmationRefusedError",
    "RegistryMismatchError",
    "evaluation_error_details",
    "evaluation_error_from_details",
]

EVALUATION_FAILURE = "PromptEvaluationError"
"""The Temporal failure type of a run that ended as ``evaluate`` would have raised."""

REGISTRY_MISMATCH = "RegistryMismatchError"

PROVIDER_UNAVAILABLE = "ProviderUnavailable"
"""The failure type of a model request attempt that met a transient provider error (429,
5xx, a lost connection, a timeout): Temporal tries it again, within the outage limit."""

CONFIRMATION_REFUSED = "ConfirmationRefusedError"
"""The failure type of a ``confirm`` update the run refused (its details say why)."""


class RegistryMismatchError(Exception):
    """A worker's registry does not build the prompt the workflow rendered (a different tool
    list, an unknown params type): deploy the same registry to every process. Never retried."""


class ConfirmationRefusedError(AffordanceError):
    """A durable run refused answers, and kept none of them: an answer is taken only for a call
    pending in the run at that moment, and only as ``approve()`` or ``deny(...)``.

    ``not_pending``: the answered call ids the run was not waiting on (unknown, not asked yet,
    or answered already); ``answered``: those of them the run has decided before (the first
    answer stands); ``pending``: the calls the run was waiting on; ``not_answers``: the call
    ids whose answer is not a ``Confirmation`` (refused before anything was sent);
    ``finished``: the run had finished.
    """

    def __init__(
        self,
        workflow_id: str,
        *,
        not_pending: Sequence[str] = (),
        pending: Sequence[str] = (),
        answered: Sequence[str] = (),
        not_answers: Sequence[str] = (),
        finished: bool = False,
        problem: str | None = None,
    ) -> None:
        self.workflow_id = workflow_id
        self.not_pending = tuple(not_pending)
        self.pending = tuple(pending)
        self.answered = tuple(answered)
        self.not_answers = tuple(not_answers)
        self.finished = finished
        self.message = problem or refusal_problems(
            self.not_pending, self.pending, self.answered, self.not_answers, finished=finished
        )
        super().__init__(f"run {workflow_id!r} refused the answers, none was kept: {self.message}")

    @property
    def first_answers_stand(self) -> bool:
        """Only repeats: the run has finished, or answered every refused call already (a
        request sent again after an earlier one went through). Nothing unknown was answered."""
        if self.not_answers:
            return False
        return self.finished or (
            bool(self.not_pending) and set(self.not_pending) <= set(self.answered)
        )


def refusal_problems(
    not_pending: Sequence[str],
    pending: Sequence[str],
    answered: Sequence[str],
    not_answers: Sequence[str] = (),
    *,
    finished: bool = False,
) -> str:
    """What is wrong with answers, worded as core's ``answer_problems``."""
    problems = []
    if not_answers:
        problems.append(f"not an approve()/deny() answer: {', '.join(not_answers)}")
    if not_pending:
        problems.append(f"calls that are not pending: {', '.join(not_pending)}")
        if answered:
            problems.append(f"answered already (the first answer stands): {', '.join(answered)}")
        if finished:
            problems.append("the run has finished")
        else:
            problems.append(f"pending now: {', '.join(pending) if pending else 'none'}")
    return "; ".join(problems) or "no answer to take"


def evaluation_error_details(error: PromptEvaluationError) -> dict[str, Any]:
    """A ``PromptEvaluationError`` as data (the details of its Temporal failure)."""
    return {
        "message": error.message,
        "prompt_name": error.prompt_name,
        "phase": error.phase,
        "provider": error.provider,
        "status": error.status,
        "request_id": error.request_id,
        "raw_text": error.raw_text,
    }


def evaluation_error_from_details(details: Any) -> PromptEvaluationError | None:
    """The error back from :func:`evaluation_error_details`, or None for other data."""
    if not isinstance(details, dict) or not isinstance(details.get("message"), str):
        return None
    status = details.get("status")
    return PromptEvaluationError(
        details["message"],
        prompt_name=_text(details.get("prompt_name")),
        phase=_text(details.get("phase")) or "request",
        provider=_text(details.get("provider")),
        status=status if isinstance(status, int) else None,
        request_id=_text(details.get("request_id")),
        raw_text=_text(details.get("raw_text")),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
