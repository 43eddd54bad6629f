"""``W3CPropagator``: core's trace-context seam (``affordance.runtime.TracePropagator``) on
OpenTelemetry's W3C Trace Context propagator.

Installed while the instrumentor is on, it is what lets a durable run's activities and an MCP
server's work join the trace of the run that started them: ``inject`` writes the current span
as ``traceparent``/``tracestate``, ``attach`` makes a carried one current.

A span already current where a carrier is attached wins: the transport propagated the trace
itself (Temporal's ``TracingInterceptor`` puts its ``RunActivity`` span there, a child of the
same trace), and nesting under it keeps its span in the tree instead of skipping it.
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry import context as otel_context
from opentelemetry.trace import get_current_span
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = ["W3CPropagator"]

_KEPT = object()
"""The token of an ``attach`` that kept the current trace (nothing to detach)."""


class W3CPropagator:
    """Core's ``TracePropagator`` in W3C Trace Context form (see the module)."""

    __slots__ = ("_format",)

    def __init__(self) -> None:
        self._format = TraceContextTextMapPropagator()

    def inject(self) -> dict[str, str]:
        carrier: dict[str, str] = {}
        self._format.inject(carrier)
        return carrier

    def attach(self, carrier: Mapping[str, str]) -> object:
        if get_current_span().get_span_context().is_valid:
            return _KEPT
        carried = self._format.extract(dict(carrier))
        return otel_context.attach(carried)

    def detach(self, token: object) -> None:
        if token is not _KEPT:
            otel_context.detach(token)  # type: ignore[arg-type]
