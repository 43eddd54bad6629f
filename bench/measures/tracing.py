"""Tracing: what ``affordance-otel`` adds to a run over HTTP.

The scenario of ``e2e_openai`` (two requests through the real ``openai`` SDK to the loopback
server, a tool call between them), Chat Completions, run plain and instrumented:
``AffordanceInstrumentor`` on a real SDK ``TracerProvider`` (spans through a
``BatchSpanProcessor`` to an exporter that drops them, so no I/O is timed) and ``MeterProvider``
(its reader never collects), metadata only — a run's ``invoke_agent`` span, two ``chat`` spans,
an ``execute_tool`` span and six metric points. The same run is also timed with the
instrumentor on the API's no-op providers: what affordance and its plugin do (the events, the
handlers, the request's own context), without the SDK's spans and points. Plain, no-op and
instrumented runs alternate, the instrumentor turned on and off between them, one short timing
each; the rows ``ratio_*`` (SDK) and ``own_ratio_*`` (no-op) are the median ratio of each
triple's pair, side by side on the same machine state.

    python bench/measures/tracing.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from _agents import ANSWER, Loopback, build
from _harness import Sample, Skip, jobs_of, main, time_awaits, time_calls
from _loopback_process import loopback_server

FRAMEWORKS = ("affordance",)
JOBS = jobs_of(FRAMEWORKS)


class _Telemetry:
    """The SDK's providers behind the instrumentor, which ``on``/``off`` toggle."""

    def __init__(self) -> None:
        try:
            from opentelemetry.sdk.metrics import MeterProvider
            from opentelemetry.sdk.metrics.export import InMemoryMetricReader
            from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
            from opentelemetry.sdk.trace.export import (
                BatchSpanProcessor,
                SpanExporter,
                SpanExportResult,
            )

            from affordance_otel import AffordanceInstrumentor
        except ImportError as error:
            raise Skip(f"affordance-otel or the OpenTelemetry SDK not installed: {error}") from None

        class Dropped(SpanExporter):  # type: ignore[misc]
            def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        from opentelemetry.metrics import NoOpMeterProvider
        from opentelemetry.trace import NoOpTracerProvider

        self.tracers = TracerProvider()
        self.tracers.add_span_processor(BatchSpanProcessor(Dropped()))
        self.meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
        self.noop = (NoOpTracerProvider(), NoOpMeterProvider())
        self.instrumentor = AffordanceInstrumentor()

    def on(self, *, noop: bool = False) -> None:
        tracers, meters = self.noop if noop else (self.tracers, self.meters)
        self.instrumentor.instrument(tracer_provider=tracers, meter_provider=meters)

    def off(self) -> None:
        self.instrumentor.uninstrument()

    def close(self) -> None:
        self.tracers.shutdown()
        self.meters.shutdown()


def measure(framework: str, args: argparse.Namespace) -> Sample:
    target, pairs = (0.05, 5) if args.quick else (0.1, 15)
    telemetry = _Telemetry()
    sample = Sample()
    try:
        with loopback_server() as base_url:
            backend = Loopback(base_url, "chat")
            agent = build(framework, backend)
            try:
                assert agent.run_sync is not None
                _check(agent.run_sync())
                _pairs_sync(sample, telemetry, agent.run_sync, target, pairs)
            finally:
                if agent.aclose is not None:
                    asyncio.run(agent.aclose())

            async def async_pairs() -> None:
                agent = build(framework, backend, async_tool=True)
                try:
                    assert agent.run_async is not None
                    _check(await agent.run_async())
                    await _pairs_async(sample, telemetry, agent.run_async, target, pairs)
                finally:
                    if agent.aclose is not None:
                        await agent.aclose()

            asyncio.run(async_pairs())
    finally:
        telemetry.close()
    return sample


def _check(answer: object) -> None:
    if not isinstance(answer, str) or ANSWER not in answer:
        raise AssertionError(f"unexpected answer {answer!r}")


def _pairs_sync(
    sample: Sample,
    telemetry: _Telemetry,
    run: Callable[[], object],
    target: float,
    pairs: int,
) -> None:
    timings: list[tuple[float, float, float]] = []
    for _ in range(pairs):
        plain = time_calls(run, target_s=target, repeat=1)
        traced: list[float] = []
        for noop in (True, False):
            telemetry.on(noop=noop)
            try:
                traced.append(time_calls(run, target_s=target, repeat=1))
            finally:
                telemetry.off()
        timings.append((plain, *traced))
    _add(sample, "sync", "evaluate", timings)


async def _pairs_async(
    sample: Sample,
    telemetry: _Telemetry,
    run: Callable[[], Awaitable[Any]],
    target: float,
    pairs: int,
) -> None:
    timings: list[tuple[float, float, float]] = []
    for _ in range(pairs):
        plain = await time_awaits(run, target_s=target, repeat=1)
        traced: list[float] = []
        for noop in (True, False):
            telemetry.on(noop=noop)
            try:
                traced.append(await time_awaits(run, target_s=target, repeat=1))
            finally:
                telemetry.off()
        timings.append((plain, *traced))
    _add(sample, "async", "aevaluate", timings)


def _add(sample: Sample, key: str, entry: str, timings: list[tuple[float, float, float]]) -> None:
    label = f"two requests + tool over HTTP, `{entry}`"
    sample.add(f"plain_{key}", f"{label}, plain", "ms", min(p for p, _, _ in timings) * 1e3)
    sample.add(
        f"own_{key}",
        f"{label}, traced on no-op providers",
        "ms",
        min(n for _, n, _ in timings) * 1e3,
    )
    sample.add(f"traced_{key}", f"{label}, traced (SDK)", "ms", min(t for _, _, t in timings) * 1e3)
    own = statistics.median(n / p for p, n, _ in timings)
    sample.add(f"own_ratio_{key}", f"`{entry}` traced on no-op providers / plain", "ratio", own)
    ratio = statistics.median(t / p for p, _, t in timings)
    sample.add(f"ratio_{key}", f"`{entry}` traced (SDK) / plain (median)", "ratio", ratio)


if __name__ == "__main__":
    main("tracing", measure, JOBS)
