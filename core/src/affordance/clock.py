"""Time, injectable: the clock and sleeper the executor uses, and evaluation deadlines.

Tests pass a fake clock so timeouts, retries, cache expiry and deadlines are exercised
without waiting.
"""

from __future__ import annotations

import time
from typing import Protocol

from affordance._frozen import frozen

__all__ = ["SYSTEM_CLOCK", "Clock", "Deadline", "SystemClock"]


class Clock(Protocol):
    """A monotonic clock that can also wait."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    async def asleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock: ``time.monotonic``, ``time.sleep`` and ``asyncio.sleep``."""

    __slots__ = ()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        import asyncio

        await asyncio.sleep(seconds)


SYSTEM_CLOCK = SystemClock()


@frozen
class Deadline:
    """An instant on a monotonic clock after which an evaluation must stop."""

    expires_at: float
    clock: Clock = SYSTEM_CLOCK

    @classmethod
    def after(cls, seconds: float, clock: Clock = SYSTEM_CLOCK) -> Deadline:
        return cls(clock.monotonic() + seconds, clock)

    def remaining(self) -> float:
        """Seconds left, never below zero."""
        return max(0.0, self.expires_at - self.clock.monotonic())

    def expired(self) -> bool:
        return self.clock.monotonic() >= self.expires_at
