"""``UsageLimits``: how much one run may spend before it stops.

A run checks its limits at two points, both where its transcript is whole (every call answered):

- **before each request**: the requests sent so far, and the tokens — already used, or certain
  to be used by the next request. The transcript only grows, so the next request reads at least
  as many input tokens as the last one did: a run stops *before* a request whose input would
  certainly cross ``input_tokens`` or ``total_tokens``;
- **after an answer that calls tools**, before the calls run: the calls made so far plus these,
  and the tokens the answer's usage shows.

A final answer is never thrown away: when the answer that crossed a token limit is the final
one, the run returns it (its usage shows the crossing). Crossing a limit raises
:class:`~affordance.errors.UsageLimitExceeded`; the run is kept in its session so
``evaluate(..., session=error.session, resume=error.run_id, limits=higher)`` continues it.
"""

from __future__ import annotations

import sys
from dataclasses import field
from typing import NamedTuple

from affordance._frozen import frozen
from affordance.runtime.model.turn import Usage

__all__ = ["Crossing", "UsageLimits"]


class Crossing(NamedTuple):
    """A limit a run would cross: its name, its value, and what the run reached."""

    limit: str
    maximum: float
    reached: float


@frozen
class UsageLimits:
    """Upper bounds for one run; ``None`` leaves a measure unbounded.

    ``requests`` counts requests to the model (a paused turn's continuation and an output
    retry are requests too); ``tool_calls`` the calls the model made (each gets a result, run
    or refused); the token limits are the provider's reported counts, summed over the run
    (``input_tokens`` includes cached input). ``cost`` bounds the run's price in US dollars:
    the run prices each turn (the runner's ``prices``, else ``genai-prices``) and refuses to
    start when a model's price is unknown, since it could not hold the limit.
    """

    requests: int | None = None
    tool_calls: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost: float | None = None
    caps: tuple[int, int, int, int, int, float] = field(init=False, repr=False, compare=False)
    """The six limits in field order, an unbounded one as ``sys.maxsize`` (``inf``): the checks
    compare against these first and look closer only near a limit."""
    watch: int = field(init=False, repr=False, compare=False)
    """The token count from which a run is :meth:`near` a token or cost limit: the smallest
    token limit (``sys.maxsize`` with none), or 0 with a cost limit (a price is not bounded by
    any one token count)."""
    first_watch: int = field(init=False, repr=False, compare=False)
    """The request count from which a new run must look closer before a request: the request
    limit, or 0 when a run is near a token or cost limit before spending anything."""

    def __post_init__(self) -> None:
        for name in ("requests", "tool_calls", "input_tokens", "output_tokens", "total_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 0
            ):
                raise ValueError(
                    f"UsageLimits.{name} must be a non-negative int or None, got {value!r}"
                )
        cost: object = self.cost
        if cost is not None and (
            isinstance(cost, bool) or not isinstance(cost, (int, float)) or not cost >= 0
        ):
            raise ValueError(
                f"UsageLimits.cost must be a non-negative number or None, got {cost!r}"
            )

        def cap(value: int | None) -> int:
            return sys.maxsize if value is None else value

        caps = (
            cap(self.requests),
            cap(self.tool_calls),
            cap(self.input_tokens),
            cap(self.output_tokens),
            cap(self.total_tokens),
            float("inf") if self.cost is None else float(self.cost),
        )
        object.__setattr__(self, "caps", caps)
        watch = 0 if self.cost is not None else min(caps[2:5])
        object.__setattr__(self, "watch", watch)
        object.__setattr__(self, "first_watch", caps[0] if watch > 0 else 0)

    def before_request(self, sent: int, usage: Usage, last_input: int) -> Crossing | None:
        """The limit the next request would cross: ``sent`` requests so far, ``usage`` the
        run's, ``last_input`` the input tokens of the last request (the least the next reads).
        A limit already reached counts: the next request can only spend more."""
        requests = self.caps[0]
        if sent >= requests:  # sys.maxsize when unbounded: never reached
            return Crossing("requests", requests, sent + 1)
        if not self.near(usage, last_input):
            return None
        return self._spending(usage, last_input, reached_counts=True)

    def near(self, usage: Usage, last_input: int) -> bool:
        """Whether ``usage`` (with ``last_input`` tokens still to read) may reach a token or
        cost limit. When it may not, neither :meth:`before_request` nor :meth:`before_calls`
        finds one crossed, so a run need not ask them until its usage changes. One comparison:
        every token measure is at most the sum of the input, output and ``last_input``
        tokens, compared with the smallest token limit; with a cost limit, always near."""
        return usage.input_tokens + usage.output_tokens + last_input >= self.watch

    def before_calls(self, made: int, calling: int, usage: Usage) -> Crossing | None:
        """The limit running ``calling`` more calls (``made`` so far) would cross, or that the
        answer asking for them already crossed (``usage``, the run's including it)."""
        calls = self.caps[1]
        if made + calling > calls:  # sys.maxsize when unbounded: never passed
            return Crossing("tool_calls", calls, made + calling)
        if not self.near(usage, 0):
            return None
        return self._spending(usage, 0, reached_counts=False)

    def _spending(self, usage: Usage, more_input: int, *, reached_counts: bool) -> Crossing | None:
        """The token or cost limit ``usage`` crosses, with ``more_input`` input tokens still to
        come; ``reached_counts``: being at a limit is crossing it."""
        measures = (
            ("input_tokens", self.input_tokens, usage.input_tokens, more_input),
            ("output_tokens", self.output_tokens, usage.output_tokens, 0),
            ("total_tokens", self.total_tokens, usage.total_tokens, more_input),
            ("cost", self.cost, usage.cost, 0),
        )
        for name, limit, used, more in measures:
            if limit is None or used is None:
                continue
            if used + more > limit or (reached_counts and used >= limit):
                return Crossing(name, limit, used + more)
        return None
