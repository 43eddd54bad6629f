"""A bounded retry budget for one provider request, for adapters whose SDK does not retry.

The provider says which failures are transient (``classify``: a :class:`Transient`, with the
wait the server asked for, or None) and what the final failure becomes (``give_up``); this
module decides whether to try again, and how long to wait:

- at most ``max_retries`` retries after the first attempt;
- the server's wait (``Retry-After``, or a provider's own field) when it gave one, up to
  ``max_retry_after``: a server asking for a longer wait is not retried, its error is final;
- otherwise exponential backoff (``initial_delay * multiplier**n``, capped at ``max_delay``)
  with ``±jitter`` of it at random;
- never past the evaluation's deadline: a wait that would end after it is not started.

Waiting goes through an injectable :class:`affordance.clock.Clock`, so tests never sleep.
Nothing here knows a provider or an SDK. (A *tool's* retries are
:class:`affordance.RetryPolicy`, counted in attempts; this one counts retries of a request.)
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from affordance._frozen import frozen
from affordance.clock import Clock, Deadline

__all__ = [
    "NO_REQUEST_RETRIES",
    "RETRIED_STATUSES",
    "RequestRetryPolicy",
    "Transient",
    "awith_retries",
    "retry_after_seconds",
    "transient_status",
    "with_retries",
]

T = TypeVar("T")


@frozen
class RequestRetryPolicy:
    """How many times, and how patiently, a transient failure is retried."""

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    multiplier: float = 2.0
    jitter: float = 0.25
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")
        if min(self.initial_delay, self.max_delay, self.max_retry_after) < 0:
            raise ValueError("retry delays must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be between 0 and 1, got {self.jitter}")

    def backoff(self, retry: int, draw: float) -> float:
        """The wait before retry number ``retry`` (0-based) with no server hint; ``draw`` is a
        random number in [0, 1)."""
        base = min(self.initial_delay * self.multiplier**retry, self.max_delay)
        return max(0.0, base * (1 + self.jitter * (2 * draw - 1)))


NO_REQUEST_RETRIES = RequestRetryPolicy(max_retries=0)

RETRIED_STATUSES = frozenset({408, 409, 429})
"""Besides every status from 500 up (529, Anthropic's "overloaded", included): the statuses
worth another attempt, as the Stainless SDKs (openai, anthropic) retry them."""


def transient_status(status: int) -> bool:
    """Whether an HTTP error status is worth another attempt (:data:`RETRIED_STATUSES`, 5xx)."""
    return status in RETRIED_STATUSES or status >= 500


@frozen
class Transient:
    """A failure worth retrying; ``retry_after`` is the wait the server asked for, if any."""

    reason: str
    retry_after: float | None = None


Classify = Callable[[Exception], "Transient | None"]
GiveUp = Callable[[Exception, int], Exception]
"""The final error for a failure after ``attempts`` attempts (raised from the failure; the
failure itself, returned, is raised again unchanged)."""


def retry_after_seconds(value: str) -> float | None:
    """A ``Retry-After`` header value in seconds: a number of seconds or an HTTP date (a date
    in the past is 0); None for anything else, a negative or a non-finite number."""
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _delay(
    error: Exception,
    classify: Classify,
    policy: RequestRetryPolicy,
    retry: int,
    deadline: Deadline | None,
    draw: Callable[[], float],
) -> float | None:
    """How long to wait before retrying ``error``, or None to give up."""
    if retry >= policy.max_retries:
        return None
    transient = classify(error)
    if transient is None:
        return None
    if transient.retry_after is not None:
        if transient.retry_after > policy.max_retry_after:
            return None
        delay = max(0.0, transient.retry_after)
    else:
        delay = policy.backoff(retry, draw())
    if deadline is not None and delay >= deadline.remaining():
        return None
    return delay


def with_retries(
    attempt: Callable[[], T],
    *,
    classify: Classify,
    give_up: GiveUp,
    policy: RequestRetryPolicy,
    clock: Clock,
    deadline: Deadline | None = None,
    draw: Callable[[], float] = random.random,
) -> T:
    """``attempt()``, retried within ``policy`` while ``classify`` calls its failure transient."""
    retry = 0
    while True:
        try:
            return attempt()
        except Exception as error:
            delay = _delay(error, classify, policy, retry, deadline, draw)
            if delay is None:
                final = give_up(error, retry + 1)
                if final is error:
                    raise
                raise final from error
        clock.sleep(delay)
        retry += 1


async def awith_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    classify: Classify,
    give_up: GiveUp,
    policy: RequestRetryPolicy,
    clock: Clock,
    deadline: Deadline | None = None,
    draw: Callable[[], float] = random.random,
) -> T:
    """The async form of :func:`with_retries` (waits with ``clock.asleep``)."""
    retry = 0
    while True:
        try:
            return await attempt()
        except Exception as error:
            delay = _delay(error, classify, policy, retry, deadline, draw)
            if delay is None:
                final = give_up(error, retry + 1)
                if final is error:
                    raise
                raise final from error
        await clock.asleep(delay)
        retry += 1
