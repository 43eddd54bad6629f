"""The activity-option mapping: the executor's per-tool timeouts and retries as Temporal
activity options, and the model request's options, from ``RunOptions``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from durable_app import NoteParams

from affordance import RetryPolicy, Tool
from affordance_temporal import RunOptions
from affordance_temporal.options import (
    NON_RETRYABLE,
    model_activity_options,
    tool_activity_options,
)

EXECUTOR_RETRY = RetryPolicy(max_attempts=4, base_delay=0.2, max_delay=3.0)


def tool(**tuning: Any) -> Tool[Any, Any]:
    return Tool[NoteParams, None](name="t", description="A tool.", handler=None, **tuning)


def test_a_tools_timeout_bounds_each_attempt_with_a_grace_for_the_executors_own_timeout() -> None:
    options = tool_activity_options(
        tool(timeout=20.0), RunOptions(), default_timeout=5.0, default_retry=EXECUTOR_RETRY
    )

    assert options.start_to_close_timeout == timedelta(seconds=22)
    assert options.schedule_to_close_timeout is None


def test_the_executors_default_timeout_applies_to_tools_without_their_own() -> None:
    short = tool_activity_options(
        tool(), RunOptions(), default_timeout=2.0, default_retry=EXECUTOR_RETRY
    )
    unbounded = tool_activity_options(
        tool(), RunOptions(tool_timeout=90), default_timeout=None, default_retry=EXECUTOR_RETRY
    )

    assert short.start_to_close_timeout == timedelta(seconds=3)  # at least a second of grace
    assert unbounded.start_to_close_timeout == timedelta(seconds=90)


def test_the_executors_retry_policy_becomes_temporals_with_the_same_attempts_and_backoff() -> None:
    policy = tool_activity_options(
        tool(), RunOptions(), default_timeout=None, default_retry=EXECUTOR_RETRY
    ).retry_policy

    assert policy.maximum_attempts == 4
    assert policy.initial_interval == timedelta(seconds=0.2)
    assert policy.backoff_coefficient == 2.0
    assert policy.maximum_interval == timedelta(seconds=3)
    assert tuple(policy.non_retryable_error_types or ()) == NON_RETRYABLE


def test_a_tools_own_retry_policy_wins_and_one_attempt_means_no_retry() -> None:
    policy = tool_activity_options(
        tool(retry=RetryPolicy(max_attempts=1, base_delay=0, max_delay=0)),
        RunOptions(),
        default_timeout=None,
        default_retry=EXECUTOR_RETRY,
    ).retry_policy

    assert policy.maximum_attempts == 1
    assert policy.initial_interval > timedelta(0)  # Temporal refuses a zero interval
    assert policy.maximum_interval is not None
    assert policy.maximum_interval >= policy.initial_interval


def test_the_run_deadline_bounds_the_whole_call_retries_included() -> None:
    options = tool_activity_options(
        tool(timeout=1.0),
        RunOptions(),
        default_timeout=None,
        default_retry=EXECUTOR_RETRY,
        remaining=12.5,
    )

    assert options.schedule_to_close_timeout == timedelta(seconds=12.5)


def test_tool_calls_go_to_the_tool_queue_with_the_tool_heartbeat() -> None:
    options = tool_activity_options(
        tool(),
        RunOptions(tool_task_queue="tools", tool_heartbeat_timeout=4),
        default_timeout=None,
        default_retry=EXECUTOR_RETRY,
    )

    assert options.task_queue == "tools"
    assert options.heartbeat_timeout == timedelta(seconds=4)
    assert options.kwargs()["task_queue"] == "tools"


def test_model_requests_are_retried_until_the_deadline_with_the_runs_backoff() -> None:
    """Attempts are the activity's to end (a final provider error, the outage limit): Temporal
    counts none, and time bounds the rest."""
    options = model_activity_options(
        RunOptions(
            model_task_queue="openai",
            model_timeout=60,
            model_heartbeat_timeout=None,
            model_max_attempts=5,
            model_retry_interval=0.5,
            model_retry_max_interval=4,
        ),
        remaining=30,
    )

    assert options.task_queue == "openai"
    assert options.start_to_close_timeout == timedelta(seconds=60)
    assert options.heartbeat_timeout is None
    assert options.schedule_to_close_timeout == timedelta(seconds=30)
    assert options.retry_policy.maximum_attempts == 0  # unlimited
    assert options.retry_policy.initial_interval == timedelta(seconds=0.5)
    assert options.retry_policy.maximum_interval == timedelta(seconds=4)
    assert "PromptEvaluationError" in (options.retry_policy.non_retryable_error_types or ())


def test_without_a_deadline_the_outage_limit_and_one_attempt_bound_a_model_request() -> None:
    bounded = model_activity_options(RunOptions(model_timeout=60, provider_outage_limit=120))
    unbounded = model_activity_options(RunOptions(provider_outage_limit=None))

    assert bounded.schedule_to_close_timeout == timedelta(seconds=180)
    assert unbounded.schedule_to_close_timeout is None
    assert RunOptions().provider_outage_limit == 600  # ten minutes by default


@pytest.mark.parametrize(
    "bad",
    [
        {"max_turns": 0},
        {"open_sections": "later"},
        {"model_max_attempts": 0},
        {"deadline": 0},
        {"tool_heartbeat_timeout": -1},
        {"provider_outage_limit": 0},
        {"model_retry_max_interval": -1},
    ],
)
def test_run_options_refuse_values_that_cannot_work(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        RunOptions(**bad)
