"""Helpers of the affordance-otel tests (imported from this directory, put on the path by
conftest.py): the SDK's real in-memory exporter and metric
reader behind an instrumented process, and a prompt that carries a canary string in its text,
its tool's arguments and result, and the model's answer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance_otel import AffordanceInstrumentor

CANARY = "canary-5f1d"
"""In the prompt, the tool's arguments, its result and the model's text: never exported unless
content capture is on."""


@dataclass(frozen=True)
class EchoParams:
    text: str


def echo(params: EchoParams) -> ToolResult[str]:
    return ToolResult.ok(f"echoed {params.text} {CANARY}-result")


def canary_prompt(*extra: Tool[Any, Any]) -> PromptTemplate[None]:
    tools = [Tool[EchoParams, str](name="echo", description="Echo text.", handler=echo), *extra]
    return PromptTemplate(
        name="canary",
        sections=[MarkdownSection(title="Task", template=f"Say {CANARY}-prompt.", tools=tools)],
    )


class Telemetry:
    """An instrumented process: its spans and metrics, read back from the SDK."""

    def __init__(self, *, capture_content: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meters = MeterProvider(metric_readers=[self.reader])
        self.instrumentor = AffordanceInstrumentor()
        self.instrumentor.instrument(
            tracer_provider=self.provider,
            meter_provider=self.meters,
            capture_content=capture_content,
        )

    def spans(self) -> tuple[ReadableSpan, ...]:
        return tuple(self.exporter.get_finished_spans())

    def span(self, name: str) -> ReadableSpan:
        (found,) = [span for span in self.spans() if span.name == name]
        return found

    def named(self, prefix: str) -> list[ReadableSpan]:
        return [span for span in self.spans() if span.name.startswith(prefix)]

    def points(self, metric: str) -> list[Any]:
        """The data points of ``metric`` (a histogram's, one per attribute set)."""
        data = self.reader.get_metrics_data()
        if data is None:
            return []
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for found in scope.metrics
            if found.name == metric
            for point in found.data.data_points
        ]

    def close(self) -> None:
        self.instrumentor.uninstrument()
        self.provider.shutdown()
        self.meters.shutdown()


def exported_text(spans: Sequence[ReadableSpan]) -> str:
    """Everything a span exporter would send of ``spans`` but ids and times: names, attribute
    values, status, events with theirs, as one string to search."""
    parts: list[str] = []
    for span in spans:
        parts.extend((span.name, repr(dict(span.attributes or {}))))
        parts.append(repr(span.status.description))
        for event in span.events:
            parts.extend((event.name, repr(dict(event.attributes or {}))))
    return "\n".join(parts)
