"""How a durable run is tuned, and how the executor's timeouts and retries become activity
options.

:class:`RunOptions` travels with the run (it is part of the workflow's input, so every replay
sees the same values). :func:`tool_activity_options`, :func:`model_activity_options` and
:func:`listing_activity_options` are the mapping ``specs/DURABLE.md`` documents: pure functions,
unit-tested without a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from temporalio.common import RetryPolicy as TemporalRetryPolicy

from affordance import RetryPolicy, Tool

__all__ = [
    "NON_RETRYABLE",
    "ActivityOptions",
    "RunOptions",
    "listing_activity_options",
    "model_activity_options",
    "tool_activity_options",
]

NON_RETRYABLE = ("PromptEvaluationError", "RegistryMismatchError")
"""Error types an activity raises that no retry can fix."""

_MIN_INTERVAL = 0.001  # Temporal refuses a zero retry interval

LISTING_RETRY = RetryPolicy(max_attempts=3, base_delay=1.0, max_delay=10.0)
"""How often listing the tools of a run's listed sections is tried (a server that does not
start, say) before the run fails."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The loop's options (as on an adapter) and the durable ones, for one run.

    ``deadline`` bounds the whole run in seconds, confirmation waits included (as ``evaluate``
    keeps a suspended run's deadline); leave it unset for runs that wait for people.
    ``confirmation_timeout``: after that many seconds without every answer, the calls still
    unanswered are denied ("no answer in time") and the run goes on; ``None`` waits for ever.
    ``model_task_queue`` / ``tool_task_queue`` route the activities (default: the workflow's
    queue), e.g. a queue per provider served by workers holding that provider's key.
    ``model_timeout`` bounds one model request attempt. A transient provider error (429, 5xx,
    a lost connection, a timeout) or a lost worker is retried — the first retry after
    ``model_retry_interval`` seconds, the wait doubling up to ``model_retry_max_interval`` —
    until the run's deadline or until the request has been trying for
    ``provider_outage_limit`` seconds (``None``: only the deadline bounds it); other provider
    errors (400, 401, an answer that does not parse) are final. ``model_max_attempts``
    bounds the attempts after an error that is not the provider's (an adapter's bug, say).
    ``tool_timeout`` bounds a tool attempt whose tool and executor set no timeout.
    Heartbeat timeouts let Temporal notice a lost worker before the attempt's timeout.
    """

    max_turns: int = 16
    open_sections: Literal["apply", "return"] = "apply"
    max_expansions: int = 4
    tool_choice: str | dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    deadline: float | None = None
    confirmation_timeout: float | None = None
    model_task_queue: str | None = None
    tool_task_queue: str | None = None
    model_timeout: float = 300.0
    model_heartbeat_timeout: float | None = 30.0
    model_max_attempts: int = 3
    model_retry_interval: float = 1.0
    model_retry_max_interval: float = 30.0
    provider_outage_limit: float | None = 600.0
    tool_timeout: float = 600.0
    tool_heartbeat_timeout: float | None = 30.0

    def __post_init__(self) -> None:
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {self.max_turns}")
        if self.open_sections not in ("apply", "return"):
            raise ValueError(
                f"open_sections must be 'apply' or 'return', got {self.open_sections!r}"
            )
        if self.model_max_attempts < 1:
            raise ValueError(
                f"model_max_attempts must be at least 1, got {self.model_max_attempts}"
            )
        for name in (
            "deadline",
            "confirmation_timeout",
            "model_timeout",
            "model_heartbeat_timeout",
            "model_retry_interval",
            "model_retry_max_interval",
            "provider_outage_limit",
            "tool_timeout",
            "tool_heartbeat_timeout",
        ):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive, got {value}")


@dataclass(frozen=True, slots=True)
class ActivityOptions:
    """The keyword arguments of one ``workflow.execute_activity`` call."""

    start_to_close_timeout: timedelta
    retry_policy: TemporalRetryPolicy
    heartbeat_timeout: timedelta | None = None
    schedule_to_close_timeout: timedelta | None = None
    task_queue: str | None = None

    def kwargs(self) -> dict[str, Any]:
        return {
            "start_to_close_timeout": self.start_to_close_timeout,
            "retry_policy": self.retry_policy,
            "heartbeat_timeout": self.heartbeat_timeout,
            "schedule_to_close_timeout": self.schedule_to_close_timeout,
            "task_queue": self.task_queue,
        }


def handler_timeout(tool: Tool[Any, Any], default_timeout: float | None) -> float | None:
    """The executor's timeout for one attempt of ``tool``: its own, else the default."""
    return tool.timeout if tool.timeout is not None else default_timeout


def timeout_grace(timeout: float) -> float:
    """How much longer Temporal waits than the handler's own timeout, so the executor's
    "timed out" result (which the model reads) arrives before Temporal gives up on the
    attempt; Temporal's timeout is the backstop for a worker that stopped answering."""
    return max(1.0, timeout * 0.1)


def tool_activity_options(
    tool: Tool[Any, Any],
    run: RunOptions,
    *,
    default_timeout: float | None,
    default_retry: RetryPolicy,
    remaining: float | None = None,
) -> ActivityOptions:
    """The activity options of a call to ``tool``.

    Temporal retries, the executor in the activity does not (it runs one attempt): the tool's
    retry policy (else the executor's) becomes a Temporal retry policy with the same attempts
    and backoff. ``remaining`` (seconds before the run's deadline) bounds the whole call.
    """
    policy = tool.retry or default_retry
    timeout = handler_timeout(tool, default_timeout)
    start_to_close = run.tool_timeout if timeout is None else timeout + timeout_grace(timeout)
    return ActivityOptions(
        start_to_close_timeout=_seconds(start_to_close),
        retry_policy=temporal_retry_policy(policy),
        heartbeat_timeout=_optional_seconds(run.tool_heartbeat_timeout),
        schedule_to_close_timeout=_optional_seconds(remaining),
        task_queue=run.tool_task_queue,
    )


def model_activity_options(run: RunOptions, *, remaining: float | None = None) -> ActivityOptions:
    """The activity options of one model request.

    Attempts are not counted by Temporal: the activity decides when a failure is final (a
    provider error that is not transient, an outage past ``provider_outage_limit``, another
    error on attempt ``model_max_attempts``). Time bounds the rest — lost workers included:
    the run's deadline (``remaining``), and the outage limit plus one attempt's
    ``model_timeout`` (the last attempt may start just before the limit)."""
    interval = run.model_retry_interval
    bounds = [
        bound
        for bound in (
            remaining,
            None
            if run.provider_outage_limit is None
            else run.provider_outage_limit + run.model_timeout,
        )
        if bound is not None
    ]
    return ActivityOptions(
        start_to_close_timeout=_seconds(run.model_timeout),
        retry_policy=TemporalRetryPolicy(
            initial_interval=_seconds(interval),
            backoff_coefficient=2.0,
            maximum_interval=_seconds(max(run.model_retry_max_interval, interval)),
            maximum_attempts=0,  # unlimited: see above
            non_retryable_error_types=list(NON_RETRYABLE),
        ),
        heartbeat_timeout=_optional_seconds(run.model_heartbeat_timeout),
        schedule_to_close_timeout=_optional_seconds(min(bounds) if bounds else None),
        task_queue=run.model_task_queue,
    )


def listing_activity_options(run: RunOptions, *, remaining: float | None = None) -> ActivityOptions:
    """The activity options of listing the tools of a run's listed sections: on the tools'
    queue (the workers that call those tools can reach their servers), bounded as a tool
    attempt is, tried :data:`LISTING_RETRY` times."""
    return ActivityOptions(
        start_to_close_timeout=_seconds(run.tool_timeout),
        retry_policy=temporal_retry_policy(LISTING_RETRY),
        heartbeat_timeout=_optional_seconds(run.tool_heartbeat_timeout),
        schedule_to_close_timeout=_optional_seconds(remaining),
        task_queue=run.tool_task_queue,
    )


def temporal_retry_policy(policy: RetryPolicy) -> TemporalRetryPolicy:
    """The executor's bounded exponential backoff as a Temporal retry policy (no jitter:
    Temporal has none)."""
    initial = max(policy.base_delay, _MIN_INTERVAL)
    return TemporalRetryPolicy(
        initial_interval=_seconds(initial),
        backoff_coefficient=2.0,
        maximum_interval=_seconds(max(policy.max_delay, initial)),
        maximum_attempts=policy.max_attempts,
        non_retryable_error_types=list(NON_RETRYABLE),
    )


def _seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


def _optional_seconds(value: float | None) -> timedelta | None:
    return None if value is None else timedelta(seconds=max(value, _MIN_INTERVAL))
