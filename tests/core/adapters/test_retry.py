"""The request retry budget on its own (``affordance.adapters.retry``): how
many attempts, how long each wait, the server's wait, the deadline; never a real sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from affordance.adapters.retry import (
    NO_REQUEST_RETRIES,
    RequestRetryPolicy,
    Transient,
    awith_retries,
    retry_after_seconds,
    with_retries,
)
from affordance.clock import Deadline
from affordance.testing import FakeClock


class FlakyError(Exception):
    pass


class FatalError(Exception):
    pass


class FinalError(Exception):
    def __init__(self, cause: Exception, attempts: int) -> None:
        super().__init__(f"{cause!r} after {attempts}")
        self.cause, self.attempts = cause, attempts


def classify(error: Exception) -> Transient | None:
    if isinstance(error, FlakyError):
        return Transient("flaky", error.args[0] if error.args else None)
    return None


def failing(*errors: Exception, result: str = "ok") -> Callable[[], str]:
    pending = list(errors)

    def attempt() -> str:
        if pending:
            raise pending.pop(0)
        return result

    return attempt


def retried(attempt: Callable[[], str], clock: FakeClock, **options: Any) -> str:
    options.setdefault("policy", RequestRetryPolicy())
    return with_retries(
        attempt, classify=classify, give_up=FinalError, clock=clock, draw=lambda: 0.5, **options
    )


def test_transient_failures_are_retried_with_exponential_backoff() -> None:
    clock = FakeClock()

    assert retried(failing(FlakyError(), FlakyError()), clock) == "ok"
    assert clock.sleeps == [0.5, 1.0]


def test_the_backoff_is_capped_and_jittered_within_its_bounds() -> None:
    policy = RequestRetryPolicy(initial_delay=1.0, max_delay=4.0, jitter=0.25)

    assert [policy.backoff(n, 0.5) for n in range(5)] == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert policy.backoff(0, 0.0) == 0.75
    assert policy.backoff(0, 0.999999) == pytest.approx(1.25, abs=1e-5)


def test_the_server_s_wait_replaces_the_backoff() -> None:
    clock = FakeClock()

    retried(failing(FlakyError(7.0)), clock)

    assert clock.sleeps == [7.0]


def test_a_server_wait_beyond_the_policy_s_limit_is_final() -> None:
    clock = FakeClock()

    with pytest.raises(FinalError) as info:
        retried(failing(FlakyError(61.0)), clock)

    assert info.value.attempts == 1
    assert clock.sleeps == []


def test_the_budget_bounds_the_attempts_and_the_last_error_is_reported() -> None:
    clock = FakeClock()
    last = FlakyError()

    with pytest.raises(FinalError) as info:
        retried(failing(FlakyError(), FlakyError(), last), clock)

    assert (info.value.cause, info.value.attempts) == (last, 3)
    assert isinstance(info.value.__cause__, FlakyError)
    assert len(clock.sleeps) == 2


def test_a_failure_that_is_not_transient_is_final_at_once() -> None:
    clock = FakeClock()

    with pytest.raises(FinalError) as info:
        retried(failing(FatalError()), clock)

    assert info.value.attempts == 1


def test_no_retries_means_one_attempt() -> None:
    with pytest.raises(FinalError):
        retried(failing(FlakyError()), FakeClock(), policy=NO_REQUEST_RETRIES)


def test_no_wait_runs_past_the_deadline() -> None:
    clock = FakeClock()
    deadline = Deadline.after(1.0, clock)

    with pytest.raises(FinalError):
        retried(failing(FlakyError(0.5), FlakyError(0.6)), clock, deadline=deadline)

    assert clock.sleeps == [0.5]  # 0.6 more would end after the deadline


def test_a_give_up_that_returns_the_failure_lets_it_go_on_unchanged() -> None:
    last = FlakyError()

    def unchanged(error: Exception, attempts: int) -> Exception:
        return error

    with pytest.raises(FlakyError) as info:
        with_retries(
            failing(FlakyError(), last),
            classify=classify,
            give_up=unchanged,
            policy=RequestRetryPolicy(max_retries=1),
            clock=FakeClock(),
            draw=lambda: 0.5,
        )

    assert info.value is last
    assert info.value.__cause__ is None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("2", 2.0),
        (" 0.25 ", 0.25),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date in the past: no wait
        ("-1", None),
        ("nan", None),
        ("soon", None),
    ],
)
def test_a_retry_after_value_is_seconds_or_a_date(value: str, seconds: float | None) -> None:
    assert retry_after_seconds(value) == seconds


def test_the_async_form_waits_on_the_clock_too() -> None:
    clock = FakeClock()
    pending: list[Exception] = [FlakyError(), FlakyError(2.0)]

    async def attempt() -> str:
        if pending:
            raise pending.pop(0)
        return "ok"

    result = asyncio.run(
        awith_retries(
            attempt,
            classify=classify,
            give_up=FinalError,
            policy=RequestRetryPolicy(),
            clock=clock,
            draw=lambda: 0.5,
        )
    )

    assert result == "ok"
    assert clock.sleeps == [0.5, 2.0]


@pytest.mark.parametrize(
    "options",
    [{"max_retries": -1}, {"initial_delay": -1.0}, {"jitter": 2.0}],
)
def test_a_policy_refuses_nonsense(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must"):
        RequestRetryPolicy(**options)
