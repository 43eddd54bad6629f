"""The open spans of one run: its ``invoke_agent`` span, the ``chat`` span of the request in
flight (by turn) and the ``execute_tool`` spans of the calls running (by call id).

One :class:`RunSpans` lives from the run's ``EvaluationStarted`` to its ``PromptExecuted`` or
``EvaluationFailed``; :class:`Runs` keeps them by run id.

A run this process did not start may still send requests and run calls here: a durable run's
activities on a worker, inside the trace the run's carrier names. Its requests and calls join
the span current when they begin (:meth:`Runs.get_or_join`) — roots when none is — and its
:class:`RunSpans` — *joined*, with no agent span of its own — is forgotten once nothing of it
is open.
"""

from __future__ import annotations

import threading

from opentelemetry import context as otel_context
from opentelemetry.context import Context
from opentelemetry.trace import Span, get_current_span, set_span_in_context

__all__ = ["RequestSpan", "RunSpans", "Runs"]


class RequestSpan:
    """A ``chat``/``generate_content`` span and what its metrics are recorded with."""

    __slots__ = ("metric_attributes", "span")

    def __init__(self, span: Span, metric_attributes: dict[str, str | int]) -> None:
        self.span = span
        self.metric_attributes = metric_attributes


class RunSpans:
    """One run's spans (see the module). ``context`` holds the agent span, the parent of the
    run's request and tool spans; ``failures`` the last failed attempt's ``error.type`` of a
    running call; ``denied`` the calls the policy refused; ``opening`` the rendered prompt's text
    (the run's first message), kept only with content capture.

    A ``joined`` run's ``agent`` is the span that was current when it joined — another
    process's (remote) or a transport's — which it adds events to but never ends."""

    __slots__ = (
        "agent",
        "context",
        "denied",
        "failures",
        "joined",
        "opening",
        "requests",
        "tools",
    )

    def __init__(self, agent: Span, *, joined: bool = False) -> None:
        self.agent = agent
        self.joined = joined
        self.context: Context = set_span_in_context(agent)
        self.requests: dict[int, RequestSpan] = {}
        self.tools: dict[str, Span] = {}
        self.failures: dict[str, str] = {}
        self.denied: set[str] = set()
        self.opening: str | None = None  # the prompt's text, kept only with content capture

    def parent(self) -> Context | None:
        """The context a request or call of this run starts its span in: the run's agent span;
        for a joined run, whatever is current where it begins (``None``) — its own activity's
        span when a transport made one, not the span the run first joined under."""
        return None if self.joined else self.context

    def end_children(self) -> None:
        """End the request and tool spans still open (a run that ended under them)."""
        for request in self.requests.values():
            request.span.end()
        for span in self.tools.values():
            span.end()
        self.requests.clear()
        self.tools.clear()


_MAX_EARLY = 1024
"""Runs whose early events are held at once; past it the held ones are dropped (runs that never
start: begun before instrumenting)."""
_MAX_EARLY_EVENTS = 256
"""Events held for one run; past it the later ones are dropped."""


class Runs:
    """The runs in flight, by run id, shared by the tracers; safe from threads.

    A few events may come before their run's ``EvaluationStarted`` (the prompt rendered as the
    run is made; the answers to pending calls, and the calls they decline, as a suspended run
    resumes): :meth:`get_or_hold` keeps them, and :meth:`start` hands them back to replay."""

    __slots__ = ("_early", "_lock", "_runs")

    def __init__(self) -> None:
        self._runs: dict[str, RunSpans] = {}
        self._early: dict[str, list[object]] = {}
        self._lock = threading.Lock()

    def get(self, run_id: str) -> RunSpans | None:
        return self._runs.get(run_id)

    def get_or_join(self, run_id: str) -> RunSpans:
        """The run's spans; for a run not started here, a joined one (see the module). With no
        span current where it joins, its spans are roots: a durable run started outside any
        trace, a run begun before instrumenting — still traced, and still counted in the
        metrics."""
        run = self._runs.get(run_id)
        if run is not None:
            return run
        with self._lock:
            run = self._runs.get(run_id)
            if run is None:
                current = get_current_span(otel_context.get_current())
                run = self._runs[run_id] = RunSpans(current, joined=True)
            return run

    def settle(self, run_id: str, run: RunSpans) -> None:
        """Forget a joined run once none of its requests or calls is open."""
        if run.joined and not run.requests and not run.tools:
            with self._lock:
                if self._runs.get(run_id) is run and not run.requests and not run.tools:
                    del self._runs[run_id]

    def get_or_hold(self, run_id: str, event: object) -> RunSpans | None:
        """The run's spans; ``None`` when it has not started, and then ``event`` is held."""
        with self._lock:
            run = self._runs.get(run_id)
            if run is None:
                if len(self._early) >= _MAX_EARLY and run_id not in self._early:
                    self._early.clear()
                held = self._early.setdefault(run_id, [])
                if len(held) < _MAX_EARLY_EVENTS:
                    held.append(event)
            return run

    def start(self, run_id: str, run: RunSpans) -> tuple[RunSpans | None, list[object]]:
        """Keep ``run``; the run it replaces (whose end was never published: a consumer left a
        stream) and the events held for it, in the order they came."""
        with self._lock:
            earlier = self._runs.get(run_id)
            self._runs[run_id] = run
            return earlier, self._early.pop(run_id, [])

    def end(self, run_id: str) -> RunSpans | None:
        """Forget the run, and end its request and tool spans still open."""
        with self._lock:
            run = self._runs.pop(run_id, None)
        if run is not None:
            run.end_children()
        return run

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()
            self._early.clear()
