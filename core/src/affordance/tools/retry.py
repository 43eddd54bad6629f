"""How often, and how patiently, a retryable tool failure is tried again."""

from __future__ import annotations

from affordance._frozen import frozen

__all__ = ["RetryPolicy"]


@frozen
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Attempt ``n`` (1-based) that fails retryably waits ``base_delay * 2**(n-1)``, capped at
    ``max_delay``, scaled by a random factor in ``[1 - jitter, 1 + jitter]``. Only failures a
    tool marks retryable (``ToolError(retryable=True)``) and timeouts are retried.
    """

    max_attempts: int = 3
    base_delay: float = 0.05
    max_delay: float = 2.0
    jitter: float = 0.25
    retry_timeouts: bool = False

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("retry delays must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be within [0, 1], got {self.jitter}")

    def delay(self, attempt: int, unit_random: float) -> float:
        """Seconds to wait after failed attempt ``attempt``; ``unit_random`` is in [0, 1)."""
        backoff = min(self.max_delay, self.base_delay * (2.0 ** (attempt - 1)))
        return backoff * (1 - self.jitter + 2 * self.jitter * unit_random)


NO_RETRY = RetryPolicy(max_attempts=1)
