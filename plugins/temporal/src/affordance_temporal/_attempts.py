"""One activity attempt as Temporal sees it: alive while it heartbeats, and, when it fails,
a failure Temporal tries again or one that is final.

Temporal does all the retrying in a durable run (the model activity sends its request once,
the tool activity runs one attempt of the handler), so each error an attempt meets is sorted
here: one no retry can fix (a provider's error that is not transient, a different registry on
this worker) is final at once; a transient provider error is retried while the run's
``provider_outage_limit`` and deadline leave room for the next attempt
(:func:`~affordance_temporal.outages.retry_delay` says when it would start); a tool's failed
result is tried again when the executor would have tried it again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from affordance import PromptEvaluationError
from affordance.runtime import CallOutcome, ToolErrorInfo
from affordance.serde import ParseError
from affordance_temporal.boundary import ModelCall
from affordance_temporal.errors import (
    EVALUATION_FAILURE,
    PROVIDER_UNAVAILABLE,
    REGISTRY_MISMATCH,
    RegistryMismatchError,
    evaluation_error_details,
)
from affordance_temporal.outages import retry_delay

__all__ = ["heartbeating", "provider_outages", "retryable", "translated"]


@asynccontextmanager
async def heartbeating() -> AsyncIterator[None]:
    """Heartbeat while the block runs, so Temporal notices a lost worker within the
    activity's heartbeat timeout instead of its whole timeout."""
    timeout = activity.info().heartbeat_timeout
    if not timeout:
        yield
        return
    interval = max(timeout.total_seconds() / 3, 0.01)

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval)

    task = asyncio.get_running_loop().create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


@contextmanager
def provider_outages(call: ModelCall) -> Iterator[None]:
    """A transient provider error becomes a retryable failure while the outage limit and the
    run's deadline leave room for the next attempt; past them it is final, saying so. An error
    that is not the provider's is retried up to ``max_attempts`` attempts."""
    try:
        yield
    except PromptEvaluationError as error:
        if not error.transient:
            raise
        info = activity.info()
        delay = retry_delay(info.retry_policy, info.attempt)
        now = time.time()
        trying = now - info.scheduled_time.timestamp()
        limit = call.outage_limit
        if limit is not None and trying + delay > limit:
            raise _gave_up(
                error,
                f"still failing after {info.attempt} attempts over {trying:.0f} s; the next "
                f"would start past provider_outage_limit={limit:g} s",
            ) from error
        if call.deadline_at is not None and now + delay >= call.deadline_at:
            raise _gave_up(
                error,
                f"still failing after {info.attempt} attempts over {trying:.0f} s; the next "
                "would start past the run's deadline",
            ) from error
        raise ApplicationError(
            str(error),
            evaluation_error_details(error),
            type=PROVIDER_UNAVAILABLE,
            category=ApplicationErrorCategory.BENIGN,  # expected in an outage: logged at DEBUG
        ) from error
    except (RegistryMismatchError, ParseError, ApplicationError):
        raise
    except Exception as error:
        if activity.info().attempt >= call.max_attempts:
            raise ApplicationError(
                f"{type(error).__name__}: {error}", type=type(error).__name__, non_retryable=True
            ) from error
        raise


def _gave_up(error: PromptEvaluationError, why: str) -> PromptEvaluationError:
    """The provider's last error, final, with why no attempt follows."""
    return PromptEvaluationError(
        f"{error.message} ({why})",
        prompt_name=error.prompt_name,
        phase=error.phase,
        provider=error.provider,
        status=error.status,
        request_id=error.request_id,
        raw_text=error.raw_text,
    )


@contextmanager
def translated() -> Iterator[None]:
    """Errors no retry can fix become non-retryable Temporal failures, typed by name."""
    try:
        yield
    except PromptEvaluationError as error:
        raise ApplicationError(
            str(error), evaluation_error_details(error), type=EVALUATION_FAILURE, non_retryable=True
        ) from error
    except (RegistryMismatchError, ParseError) as error:
        raise ApplicationError(str(error), type=REGISTRY_MISMATCH, non_retryable=True) from error


def retryable(outcome: CallOutcome, retry_timeouts: bool) -> bool:
    """Would the executor have tried again? A retryable ``ToolError``, or a timeout when the
    policy retries timeouts."""
    result = outcome.result
    if result.success:
        return False
    if isinstance(result.value, ToolErrorInfo):
        return result.value.retryable
    return retry_timeouts and outcome.error_code == "timeout"
