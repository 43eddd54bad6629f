"""``UsageLimitExceeded``: a run stopped at one of its usage limits, and how to resume it.

It lives beside the session that keeps the stopped run (``affordance.errors`` sits below the
runtime and cannot name its usage or session types); ``affordance`` exports it with the rest.
"""

from __future__ import annotations

from affordance.errors import PromptEvaluationError
from affordance.runtime.model.turn import Usage
from affordance.runtime.record.session import Session

__all__ = ["UsageLimitExceeded"]


class UsageLimitExceeded(PromptEvaluationError):  # noqa: N818 - a stop, named as peers name it
    """A run reached one of its ``UsageLimits`` (phase ``limits``) and stopped before the work
    that would cross it: the next request, or the tool calls of the last answer.

    ``limit`` names the limit (``"requests"``, ``"tool_calls"``, ``"input_tokens"``...),
    ``maximum`` its value and ``reached`` what the run had used, or would have, when it
    stopped. ``usage`` is the run's usage so far. The stopped run is kept in ``session``:
    pass ``resume=error.run_id`` with the same session and higher ``limits=`` to continue it
    where it stopped, nothing lost and nothing run twice.
    """

    def __init__(
        self,
        message: str,
        *,
        limit: str,
        maximum: float,
        reached: float,
        usage: Usage,
        session: Session,
        run_id: str,
        prompt_name: str | None = None,
    ) -> None:
        self.limit = limit
        self.maximum = maximum
        self.reached = reached
        self.usage = usage
        self.session = session
        self.run_id = run_id
        super().__init__(message, prompt_name=prompt_name, phase="limits")
