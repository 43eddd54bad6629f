"""``RunLimits``: how far a run may go, and the usage its limits count.

A run may send a request only while under ``max_turns``, before its deadline, and — with
:class:`~affordance.runtime.model.limits.UsageLimits` — when neither the request nor the calls
a turn asks for would cross a limit. A run far from its limits pays no check per request
(``_watch_from``, see :meth:`RunLimits._rewatch`); one that reaches a limit stops, kept in its
session to resume where it stopped (found by ``resumption``), raising
:class:`~affordance.runtime.record.usage_limit.UsageLimitExceeded`. The usage is the run's sum,
split by provider once a second one answers (``usage_split``).

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_LimitedRun`` names what these methods read and write of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from affordance.clock import Deadline
from affordance.errors import PromptEvaluationError
from affordance.prompt.template import PromptTemplate
from affordance.runtime.loop.actions import Action
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.loop.usage_split import added
from affordance.runtime.model.compaction import HistoryHook
from affordance.runtime.model.limits import Crossing, UsageLimits
from affordance.runtime.model.turn import NO_USAGE, ProviderTurn, Usage
from affordance.runtime.record.response import ToolCallResult
from affordance.runtime.record.session import Session
from affordance.runtime.record.usage_limit import UsageLimitExceeded

__all__ = ["RunLimits"]


class _LimitedRun(Protocol):
    """The evaluation as its limits see it."""

    adapter: EvaluationRunner
    prompt: PromptTemplate[Any]
    session: Session
    run_id: str
    turn: int
    max_turns: int
    deadline: Deadline | None
    history: HistoryHook | None
    limits: UsageLimits | None
    usage: Usage
    tool_results: list[ToolCallResult]
    _by_provider: dict[str, Usage] | None
    _last_input: int
    _watch_from: int
    _stopped: Callable[[], Action] | None

    def _next_request(self) -> Action: ...

    def _take_calls(self, turn: ProviderTurn) -> Action: ...

    def _rewatch(self) -> None: ...

    def _stop(self, crossing: Crossing, then: Callable[[], Action]) -> NoReturn: ...

    def set_limits(self, limits: UsageLimits | None) -> None: ...


class RunLimits:
    """An evaluation's bounds and usage: counted, checked, stopped at and resumed from."""

    __slots__ = ()

    # what these methods set (the evaluation's slots)
    usage: Usage
    limits: UsageLimits | None
    _by_provider: dict[str, Usage] | None
    _watch_from: int
    _stopped: Callable[[], Action] | None

    # -- usage -----------------------------------------------------------------------------

    def _count(self: _LimitedRun, usage: Usage, provider: str) -> None:
        """Add ``usage`` to the run's, and to ``provider``'s share once it is not the only one
        (a run whose every turn came from its connection keeps no split)."""
        self.usage, self._by_provider = added(
            self.usage, self._by_provider, usage, provider, self.adapter.connection.name
        )

    @property
    def usage_by_provider(self: _LimitedRun) -> dict[str, Usage]:
        """The run's usage split by the provider that answered (or that nested runs used):
        the split once there is one, else all of it the connection's."""
        if self._by_provider is not None:
            return dict(self._by_provider)
        return {self.adapter.connection.name: self.usage} if self.usage is not NO_USAGE else {}

    # -- limits ----------------------------------------------------------------------------

    def _may_send(self: _LimitedRun) -> None:
        """Raise if the run may not send another request: ``max_turns`` reached, the deadline
        passed, or a limit the request would cross (then the run stops, to be resumed)."""
        if self.turn >= self.max_turns:
            raise PromptEvaluationError(
                f"the model kept calling tools for {self.max_turns} turns (max_turns); raise "
                "max_turns or check the tools' results",
                prompt_name=self.prompt.name,
                phase="loop",
            )
        if self.deadline is not None and self.deadline.expired():
            raise PromptEvaluationError(
                "the evaluation deadline passed", prompt_name=self.prompt.name, phase="deadline"
            )
        limits = self.limits
        if limits is None:
            return
        # with a history hook the next request may read less than the last did: no input is
        # taken as certain
        last = self._last_input if self.history is None else 0
        crossing = limits.before_request(self.turn, self.usage, last)
        if crossing is not None:
            self._stop(crossing, self._next_request)

    def set_limits(self: _LimitedRun, limits: UsageLimits | None) -> None:
        """Hold the run to ``limits`` from its next check on (a resumed run's new limits)."""
        self.limits = limits
        self._watch_from = self.max_turns
        if limits is not None:
            self._rewatch()

    def _rewatch(self: _LimitedRun) -> None:
        """Set the request count from which ``_next_request`` looks closer: ``max_turns`` or
        an earlier request limit — or at once (0) while the run's usage is near a token or cost
        limit, which ``_take_calls`` reads too. Called when the limits change, after nested
        usage, and where a turn without calls goes on to a request (``_take_calls`` makes the
        same comparison inline for a turn with calls), so a run far from its limits pays no
        check per request, and an accepted final answer none at all."""
        limits = self.limits
        assert limits is not None
        if limits.near(self.usage, self._last_input):
            self._watch_from = 0
        else:
            self._watch_from = min(self.max_turns, limits.caps[0])

    def _check_calls(self: _LimitedRun, turn: ProviderTurn) -> None:
        """Stop before the calls of ``turn`` if running them, or the answer asking for them,
        crosses a limit."""
        limits = self.limits
        assert limits is not None
        crossing = limits.before_calls(len(self.tool_results), len(turn.tool_calls), self.usage)
        if crossing is not None:
            self._stop(crossing, lambda: self._take_calls(turn))

    def _stop(self: _LimitedRun, crossing: Crossing, then: Callable[[], Action]) -> NoReturn:
        """Stop the run at a limit, keeping it in its session to be resumed with ``then``."""
        self._stopped = then
        self.session.keep_stopped(self.run_id, self)
        raise UsageLimitExceeded(
            f"the run reached its {crossing.limit} limit ({crossing.reached:g} of at most "
            f"{crossing.maximum:g}); resume it with resume={self.run_id!r}, the same session "
            "and a higher limit",
            limit=crossing.limit,
            maximum=crossing.maximum,
            reached=crossing.reached,
            usage=self.usage,
            session=self.session,
            run_id=self.run_id,
            prompt_name=self.prompt.name,
        )

    def resume_stopped(self: _LimitedRun, limits: UsageLimits | None) -> Action:
        """Continue where a limit stopped the run, under ``limits`` (checked again)."""
        then = self._stopped
        if then is None:
            raise PromptEvaluationError(
                f"run {self.run_id!r} was not stopped by a limit",
                prompt_name=self.prompt.name,
                phase="limits",
            )
        self._stopped = None
        self.session.release_stopped(self.run_id)
        self.set_limits(limits)
        return then()
