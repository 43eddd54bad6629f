"""What a failed activity or a refused update becomes in the durable run.

A model request that failed for good ends the run as ``evaluate`` would have raised (the
provider's ``PromptEvaluationError``, or one saying the deadline passed while it was retried); a
tool activity that failed for good is a failed result the model reads, never a failed run; a
refused ``confirm`` update reaches the caller as ``ConfirmationRefusedError``.
"""

from __future__ import annotations

from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as ActivityTimeoutError

from affordance import PromptEvaluationError, ToolResult
from affordance.runtime import CallOutcome, PreparedCall
from affordance.serde import ParseError
from affordance_temporal.boundary import ConfirmationRefusal, ToolAnswer, from_data, to_data
from affordance_temporal.errors import (
    CONFIRMATION_REFUSED,
    EVALUATION_FAILURE,
    PROVIDER_UNAVAILABLE,
    evaluation_error_details,
    evaluation_error_from_details,
    refusal_problems,
)
from affordance_temporal.names import RETRYABLE_TOOL_FAILURE
from affordance_temporal.results import decode_result

__all__ = ["lost_call", "model_failure", "refused_update", "run_failure"]


def run_failure(error: PromptEvaluationError) -> ApplicationError:
    return ApplicationError(
        str(error), evaluation_error_details(error), type=EVALUATION_FAILURE, non_retryable=True
    )


def model_failure(
    error: ActivityError, prompt_name: str, deadline_passed: bool
) -> ApplicationError:
    """The workflow's failure when a model request failed for good: the provider's
    ``PromptEvaluationError`` as the worker raised it, or one saying why the activity did
    (the run's deadline passed while it was retried: phase ``deadline``, as ``evaluate``)."""
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type == EVALUATION_FAILURE:
        raised = evaluation_error_from_details(cause.details[0] if cause.details else None)
        if raised is not None:
            return run_failure(raised)
    reason = str(cause) if cause is not None else str(error)
    last = cause.cause if isinstance(cause, ActivityTimeoutError) else None
    if isinstance(last, ApplicationError) and last.type == PROVIDER_UNAVAILABLE:
        reason = f"{reason}; the provider's last answer: {last}"
    if deadline_passed:
        return run_failure(
            PromptEvaluationError(
                f"the evaluation deadline passed while the model request was retried ({reason})",
                prompt_name=prompt_name,
                phase="deadline",
            )
        )
    return run_failure(
        PromptEvaluationError(
            f"the model request did not complete: {reason}",
            prompt_name=prompt_name,
            phase="request",
        )
    )


def refused_update(refusal: ConfirmationRefusal) -> ApplicationError:
    """A refused ``confirm`` update: the caller raises ``ConfirmationRefusedError``."""
    message = refusal.problem or refusal_problems(
        refusal.not_pending, refusal.pending, refusal.answered, finished=refusal.finished
    )
    return ApplicationError(
        message, to_data(refusal), type=CONFIRMATION_REFUSED, non_retryable=True
    )


def lost_call(prepared: PreparedCall, error: ActivityError) -> CallOutcome:
    """A tool activity that failed for good is a failed result, never a failed run. A
    retryable failure that ran out of time carries its last result; use it."""
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type == RETRYABLE_TOOL_FAILURE:
        try:
            answer = from_data(ToolAnswer, cause.details[0] if cause.details else None)
        except ParseError:
            pass
        else:
            result = decode_result(answer.result, prepared.tool)
            return CallOutcome(
                prepared, result, answer.duration, answer.attempts, answer.error_code
            )
    reason = str(cause) if cause is not None else str(error)
    message = (
        f"Tool {prepared.call.name!r} failed: the worker running it did not finish ({reason}). "
        "It may or may not have taken effect."
    )
    return CallOutcome(prepared, ToolResult.error(message), error_code="activity_failed")
