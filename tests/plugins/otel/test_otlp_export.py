"""The real OTLP/HTTP exporters (``opentelemetry-exporter-otlp-proto-http``) send a run's spans
and metrics to a collector this test starts on loopback (``http.server`` in a thread), which
decodes the protobuf (``opentelemetry-proto``): the spans and their GenAI attributes arrive, in
one trace — and the canary is nowhere in the bytes sent, unless content capture is on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from otel_support import CANARY, canary_prompt
from otlp_collector import Collector, attributes_of

from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_otel import AffordanceInstrumentor


@pytest.fixture
def collector() -> Iterator[Collector]:
    made = Collector()
    yield made
    made.close()


def export_one_run(collector: Collector, *, capture_content: bool) -> None:
    """Instrument with the OTLP/HTTP exporters pointed at ``collector``, run, flush."""
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=collector.url("/v1/traces")))
    )
    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=collector.url("/v1/metrics")),
        export_interval_millis=3_600_000,
    )
    meters = MeterProvider(metric_readers=[reader])
    instrumentor = AffordanceInstrumentor()
    instrumentor.instrument(
        tracer_provider=provider, meter_provider=meters, capture_content=capture_content
    )
    try:
        ScriptedAdapter(
            [
                tool_calls(tool_call("echo", {"text": f"{CANARY}-args"}, call_id="c1")),
                text(f"Done {CANARY}-text"),
            ]
        ).evaluate(canary_prompt())
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
        meters.shutdown()  # exports the metrics once more, then stops


def test_the_spans_and_metrics_arrive_over_otlp_http_without_content(collector: Collector):
    export_one_run(collector, capture_content=False)
    spans = []
    for body in collector.bodies("/v1/traces"):
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                assert scope.scope.name == "affordance_otel"
                assert scope.schema_url == "https://opentelemetry.io/schemas/1.37.0"
                spans.extend(scope.spans)
    by_name = {span.name: span for span in spans}
    assert sorted(by_name) == ["chat", "execute_tool echo", "invoke_agent canary"]
    assert len(spans) == 4  # two chat spans
    assert len({span.trace_id for span in spans}) == 1
    agent = by_name["invoke_agent canary"]
    assert agent.parent_span_id == b""
    assert {span.parent_span_id for span in spans if span is not agent} == {agent.span_id}
    attributes = attributes_of(by_name["execute_tool echo"])
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "echo"
    assert attributes["gen_ai.tool.call.id"] == "c1"
    agent_attributes = attributes_of(agent)
    assert agent_attributes["gen_ai.response.finish_reasons"] == ("stop",)

    (metrics_body, *_) = collector.bodies("/v1/metrics")
    request = ExportMetricsServiceRequest.FromString(metrics_body)
    names = {
        metric.name
        for resource in request.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }
    assert names == {"gen_ai.client.token.usage", "gen_ai.client.operation.duration"}

    assert all(CANARY.encode() not in body for _, body in collector.received)


def test_with_content_capture_the_content_is_in_what_is_sent(collector: Collector):
    export_one_run(collector, capture_content=True)
    sent = b"".join(collector.bodies("/v1/traces"))
    for piece in ("prompt", "args", "result", "text"):
        assert f"{CANARY}-{piece}".encode() in sent
