"""Resuming a suspended evaluation: finding the run the caller's confirmations answer.

An evaluation that waits for confirmation is kept in its session, keyed by its pending call
ids. ``evaluate(..., session=..., confirmations=...)`` resumes it; this module finds it and
refuses, before anything runs, answers that cannot belong to exactly one suspended run of the
prompt given. Whether the answers fit that run's pending calls is the run's own check
(:meth:`Evaluation.resume`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, cast

from affordance.errors import PromptEvaluationError
from affordance.prompt.template import PromptTemplate
from affordance.runtime.loop.evaluation import Evaluation
from affordance.runtime.record.confirmation import Confirmation
from affordance.runtime.record.session import Session

__all__ = ["stopped_evaluation", "suspended_evaluation"]

OutputT = TypeVar("OutputT")


def suspended_evaluation(
    prompt: PromptTemplate[OutputT],
    session: Session | None,
    confirmations: Mapping[str, Confirmation],
) -> Evaluation[OutputT]:
    """The suspended evaluation ``confirmations`` answer, after checking they fit it exactly:
    a session given, a non-empty mapping, calls of one suspended run of ``prompt``."""

    def refuse(message: str) -> PromptEvaluationError:
        return PromptEvaluationError(message, prompt_name=prompt.name, phase="confirm")

    if session is None:
        raise refuse("resuming with confirmations needs the session of the suspended evaluation")
    answers: object = confirmations  # callers are not always type-checked
    if not isinstance(answers, Mapping):
        raise refuse(
            "confirmations must map each pending call id to approve() or deny(), "
            f"got {type(answers).__name__}"
        )
    if not confirmations:
        raise refuse("confirmations is empty; answer every pending call (approve or deny)")
    runs = session.suspended_runs(confirmations)
    if len(runs) > 1:
        raise refuse(
            "the confirmations answer calls of more than one suspended evaluation; "
            "resume each with its own calls"
        )
    if not runs:
        raise refuse(
            f"no suspended evaluation in this session waits for calls "
            f"{', '.join(sorted(confirmations))}"
        )
    suspended = cast("Evaluation[OutputT]", runs[0])  # a session keeps evaluations only
    if suspended.prompt is not prompt:
        raise refuse(
            f"the calls {', '.join(sorted(confirmations))} belong to an evaluation of "
            f"prompt {suspended.prompt.name!r}; resume it with that prompt"
        )
    return suspended


def stopped_evaluation(
    prompt: PromptTemplate[OutputT],
    session: Session | None,
    run_id: str,
    confirmations: Mapping[str, Confirmation] | None,
) -> Evaluation[OutputT]:
    """The run a usage limit stopped, kept in ``session`` under ``run_id``, for ``prompt``."""

    def refuse(message: str) -> PromptEvaluationError:
        return PromptEvaluationError(message, prompt_name=prompt.name, phase="limits")

    if confirmations is not None:
        raise refuse("pass resume= or confirmations=, not both: they continue different stops")
    if session is None:
        raise refuse("resuming a run stopped by a limit needs its session (error.session)")
    run = session.stopped_run(run_id)
    if not isinstance(run, Evaluation):
        raise refuse(f"no run stopped by a limit in this session has the id {run_id!r}")
    if run.prompt is not prompt:
        raise refuse(
            f"run {run_id!r} is an evaluation of prompt {run.prompt.name!r}; resume it with "
            "that prompt"
        )
    return cast("Evaluation[OutputT]", run)
