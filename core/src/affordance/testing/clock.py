"""``FakeClock``: time that moves only when the code under test sleeps or the test advances it."""

from __future__ import annotations

import threading

__all__ = ["FakeClock"]


class FakeClock:
    """A :class:`affordance.clock.Clock` for tests; ``sleeps`` records every wait."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
