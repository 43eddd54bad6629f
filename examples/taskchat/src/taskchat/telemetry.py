"""Traces and metrics over OTLP, when the operator asks for them with
``OTEL_EXPORTER_OTLP_ENDPOINT`` (the standard OpenTelemetry variable).

Set, :func:`telemetry_from_env` builds taskchat's :class:`Telemetry`: a tracer provider that
batches spans to the real OTLP/HTTP span exporter and a meter provider with the OTLP metric
exporter (both read the ``OTEL_EXPORTER_OTLP_*`` variables themselves), under the service name
``OTEL_SERVICE_NAME`` (else ``taskchat``). The app then gets a server span per HTTP request
(:meth:`Telemetry.trace_requests`, OpenTelemetry's ASGI middleware) and, while it runs, every
affordance run is traced by ``affordance-otel`` under the request that started it
(:meth:`Telemetry.running`): ``invoke_agent``, ``chat`` and ``execute_tool`` spans in the
request's trace. Metadata only, unless ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
is ``true`` (read by the instrumentor). When the app stops, the providers are shut down, which
sends what is still buffered.

The providers are taskchat's own, passed to the instrumentations: none is set as OpenTelemetry's
global one. Unset, nothing of OpenTelemetry's SDK, exporters or instrumentations is imported —
they are the ``otel`` extra (``pip install taskchat[otel]``), and taskchat runs without them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

__all__ = [
    "DEFAULT_SERVICE_NAME",
    "ENDPOINT_ENV",
    "Telemetry",
    "TelemetrySetupError",
    "telemetry_from_env",
]

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"
"""Set (an OTLP/HTTP base URL such as ``http://127.0.0.1:4318``): export traces and metrics."""
DEFAULT_SERVICE_NAME = "taskchat"
"""The service name unless ``OTEL_SERVICE_NAME`` or ``OTEL_RESOURCE_ATTRIBUTES`` gives one."""

logger = logging.getLogger("taskchat.telemetry")

SpanDetails = Callable[[MutableMapping[str, Any]], tuple[str, dict[str, str]]]


class TelemetrySetupError(ValueError):
    """``OTEL_EXPORTER_OTLP_ENDPOINT`` asks for telemetry that cannot be set up here; the message
    says what to install. (A ``ValueError``: ``taskchat serve`` reports it and exits 2.)"""


def telemetry_from_env() -> Telemetry | None:
    """The app's telemetry if ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, else ``None`` (and nothing
    of OpenTelemetry is imported)."""
    if not os.environ.get(ENDPOINT_ENV, "").strip():
        return None
    try:
        # the instrumentations too, though they are used later: a missing one is said now
        import opentelemetry.instrumentation.asgi  # noqa: F401
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        import affordance_otel  # noqa: F401
    except ImportError as error:
        raise TelemetrySetupError(
            f"{ENDPOINT_ENV} is set, but OpenTelemetry's packages are not installed "
            f"(pip install 'taskchat[otel]'): {error}"
        ) from None
    resource = _resource()
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    reader = PeriodicExportingMetricReader(OTLPMetricExporter())
    return Telemetry(tracer_provider, MeterProvider(metric_readers=[reader], resource=resource))


def _resource() -> Resource:
    """The SDK's resource from the environment, named ``OTEL_SERVICE_NAME`` (or the
    ``service.name`` of ``OTEL_RESOURCE_ATTRIBUTES``), else ``taskchat``."""
    from opentelemetry.sdk.resources import SERVICE_NAME, OTELResourceDetector, Resource

    named = OTELResourceDetector().detect().attributes.get(SERVICE_NAME)
    return Resource.create({SERVICE_NAME: named or DEFAULT_SERVICE_NAME})


class Telemetry:
    """taskchat's tracer and meter providers, and what it instruments with them: the HTTP
    requests (:meth:`trace_requests`) and the affordance runs (:meth:`running`)."""

    def __init__(self, tracer_provider: TracerProvider, meter_provider: MeterProvider) -> None:
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider

    def trace_requests(self, app: FastAPI) -> None:
        """A server span per HTTP request (the outermost middleware), current while the
        request is handled — through a streamed response's last event, and in the tasks the
        request starts, which copy its context — and continuing a caller's ``traceparent``.

        Without ``send``/``receive`` spans: a chat stream would have one per event."""
        from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

        app.add_middleware(
            OpenTelemetryMiddleware,
            tracer_provider=self.tracer_provider,
            meter_provider=self.meter_provider,
            default_span_details=_route_span_details(app),
            exclude_spans=["receive", "send"],
        )

    @contextmanager
    def running(self) -> Iterator[None]:
        """While the app runs: every affordance run of the process traced with these
        providers. At the end, the providers shut down, sending what they still hold.

        Left alone if something else instrumented affordance already
        (``opentelemetry-instrument``): its runs go to that instrumentation's providers."""
        from affordance_otel import AffordanceInstrumentor

        instrumentor = AffordanceInstrumentor()
        ours = not instrumentor.is_instrumented_by_opentelemetry
        logger.info("traces and metrics are exported over OTLP to %s", os.environ.get(ENDPOINT_ENV))
        if ours:
            instrumentor.instrument(
                tracer_provider=self.tracer_provider, meter_provider=self.meter_provider
            )
        else:
            logger.warning("affordance is already instrumented: its runs keep that set-up")
        try:
            yield
        finally:
            if ours:
                instrumentor.uninstrument()
            self.shutdown()

    def shutdown(self) -> None:
        """Export what is still buffered, then stop both providers."""
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def _route_span_details(app: FastAPI) -> SpanDetails:
    """The server span's name, ``{method} {route}`` — ``GET /api/v1/conversations/
    {conversation_id}``, the route's template rather than the path, so that span names stay
    few — and its ``http.route``; the method alone where no route matches."""
    from opentelemetry.util.http import sanitize_method
    from starlette.routing import Match

    def details(scope: MutableMapping[str, Any]) -> tuple[str, dict[str, str]]:
        method = sanitize_method(str(scope.get("method", "")).strip())
        if method == "_OTHER":
            method = "HTTP"
        for route in app.router.routes:
            match, _ = route.matches(scope)
            template = getattr(route, "path", None)
            if match is not Match.NONE and isinstance(template, str):
                return f"{method} {template}", {"http.route": template}
        return method, {}

    return details
