"""``AffordanceInstrumentor``: OpenTelemetry for every affordance run in the process.

    AffordanceInstrumentor().instrument(tracer_provider=..., meter_provider=...,
                                        capture_content=False)
    AffordanceInstrumentor().uninstrument()

``opentelemetry-instrument`` finds it under the ``opentelemetry_instrumentor`` entry point
``affordance`` and calls ``instrument()`` with no arguments: the global providers, and content
capture as ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` says (off unless ``true``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.instrumentation.instrumentor import (  # type: ignore[attr-defined]
    BaseInstrumentor,
)
from opentelemetry.semconv.schemas import Schemas

from affordance import EventBus
from affordance.runtime import set_trace_propagator
from affordance_otel.metrics import RequestMetrics
from affordance_otel.propagation import W3CPropagator
from affordance_otel.tracer import RunTracer

__all__ = ["CAPTURE_CONTENT_ENV", "AffordanceInstrumentor"]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable that turns content capture on (``true``) when ``instrument()`` is
not told ``capture_content=``: the one the OpenTelemetry GenAI instrumentations read."""

_VERSION = "0.1.0"
_SCHEMA = Schemas.V1_37_0.value


class AffordanceInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Spans and metrics for every affordance run, per the GenAI semantic conventions.

    ``instrument()`` subscribes one :class:`~affordance_otel.tracer.RunTracer` to every event
    bus of the process and installs the W3C trace-context propagator durable runs and MCP
    calls carry (:class:`~affordance_otel.propagation.W3CPropagator`); ``uninstrument()`` takes
    both off again, and runs no longer pay for them.
    A singleton (``BaseInstrumentor``'s): every instance is the same object.
    """

    _subscribed: tuple[tuple[type[Any], Callable[[Any], None]], ...] = ()
    _tracer: RunTracer | None = None

    def instrumentation_dependencies(self) -> Collection[str]:
        return ("affordance >= 0.1",)

    def _instrument(self, **kwargs: Any) -> None:
        capture = kwargs.get("capture_content")
        if capture is None:
            capture = os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"
        tracer = trace.get_tracer(
            "affordance_otel", _VERSION, kwargs.get("tracer_provider"), schema_url=_SCHEMA
        )
        meter = metrics.get_meter(
            "affordance_otel", _VERSION, kwargs.get("meter_provider"), schema_url=_SCHEMA
        )
        run_tracer = RunTracer(tracer, RequestMetrics(meter), capture_content=bool(capture))
        subscribed = run_tracer.handlers()
        for event_type, handler in subscribed:
            EventBus.subscribe_every_bus(event_type, handler)
        self._tracer, self._subscribed = run_tracer, subscribed
        set_trace_propagator(W3CPropagator())

    def _uninstrument(self, **kwargs: Any) -> None:
        set_trace_propagator(None)
        for event_type, handler in self._subscribed:
            EventBus.unsubscribe_every_bus(event_type, handler)
        if self._tracer is not None:
            self._tracer.forget_runs()
        self._tracer, self._subscribed = None, ()
