"""Provider outages in a durable run: the wait Temporal makes between attempts.

An adapter's own retries (the SDK client's ``max_retries``, a ``RequestRetryPolicy``) hold a
worker slot while they wait, are lost with the worker and never show in the run's history;
and they give up after seconds. Inside the model activity each request is sent once (the
activity's ``ModelRequest`` says ``retries=False``, which every adapter honours: the
contract's ``test_a_request_that_asks_for_no_retries_is_sent_once``), and a transient
failure (``PromptEvaluationError.transient``, which the adapters set: 408, 409, 429, 5xx, a
lost connection or a timeout) fails the attempt for Temporal to retry with its backoff, until
the run's deadline or ``provider_outage_limit``.
"""

from __future__ import annotations

from temporalio.common import RetryPolicy as TemporalRetryPolicy

__all__ = ["retry_delay"]


def retry_delay(policy: TemporalRetryPolicy | None, attempt: int) -> float:
    """How long Temporal waits after failed attempt ``attempt`` (1-based) under ``policy``:
    its initial interval, times its coefficient per earlier attempt, capped at its maximum."""
    if policy is None:
        return 0.0
    delay = policy.initial_interval.total_seconds() * policy.backoff_coefficient ** (attempt - 1)
    if policy.maximum_interval is not None:
        delay = min(delay, policy.maximum_interval.total_seconds())
    return delay
