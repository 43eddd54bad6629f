"""A durable run's spans join one trace across the Temporal client and the worker's activities.

``start_run`` puts the trace context current where the caller starts the run (here a span
standing for an HTTP request) in the workflow's input; the workflow copies it into every
activity's input; each activity joins it. So the worker's ``chat`` and ``execute_tool`` spans,
exported with the real OTLP/HTTP exporter to a collector on loopback, are children of the
caller's span, in its trace — or, with Temporal's own ``TracingInterceptor`` configured too,
children of its ``RunActivity`` spans, themselves descendants of the caller's span. A run
resumed by an answer sent from another request stays in the trace it was started in. A run
started with no span current completes and carries no trace (its worker's spans are roots);
one started while affordance is not instrumented carries none either.
A tool activity cancelled mid-call still ends the span it opened.

The dev server is real (``temporal_server``), the worker runs in this process, the model is
``durable_app``'s script: turn 1 calls ``add_note``, turn 2 answers.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("affordance_temporal")  # the otel-only tox environment has none

from durable_app import PROMPT, Ledger, NoteRef, Task, make_adapter, make_registry
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span as OtelSpan
from opentelemetry.trace import SpanContext, StatusCode, use_span
from otel_support import Telemetry
from otlp_collector import Collector, attributes_of
from temporalio.client import Client, Interceptor
from temporalio.testing import ActivityEnvironment

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult, approve
from affordance.adapters import ToolCall
from affordance_otel import AffordanceInstrumentor
from affordance_temporal import PromptRegistry, attach_run, durable_worker, start_run
from affordance_temporal.activities import DurableActivities
from affordance_temporal.boundary import PromptRef, ToolCallInput, to_data
from affordance_temporal.names import MODEL_ACTIVITY, TOOL_ACTIVITY
from affordance_temporal.testing import DevServer

pytestmark = pytest.mark.slow

CALLER = "http request"
"""The client-side span a run is started in."""
TOOL_SPAN = "execute_tool add_note"
TRACEPARENT = f"00-{0x0AF7651916CD43DD8448EB211C80319C:032x}-{0x00F067AA0BA902B7:016x}-01"
"""A caller's span in another process."""


@pytest.fixture
def collector() -> Iterator[Collector]:
    made = Collector()
    yield made
    made.close()


def exporting_to(collector: Collector) -> TracerProvider:
    """A tracer provider sending to ``collector`` as an operator's would: in batches, from the
    exporter's thread (a span ended in workflow code — Temporal's own — is not sent from inside
    the sandbox, which refuses the exporter's imports)."""
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=collector.url("/v1/traces")))
    )
    return provider


@contextmanager
def instrumented(collector: Collector) -> Iterator[TracerProvider]:
    """affordance instrumented with the OTLP/HTTP exporter to ``collector``. Every span is
    sent by the time the block ends."""
    provider = exporting_to(collector)
    meters = MeterProvider()
    instrumentor = AffordanceInstrumentor()
    instrumentor.instrument(tracer_provider=provider, meter_provider=meters)
    try:
        yield provider
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
        meters.shutdown()


def names() -> tuple[str, str]:
    """A fresh task queue and workflow id."""
    tag = uuid.uuid4().hex[:12]
    return f"trace-{tag}", f"run-{tag}"


async def run_durably(
    address: str,
    ledger: Ledger,
    script: str,
    *,
    started_in: OtelSpan | None = None,
    interceptors: tuple[Interceptor, ...] = (),
) -> tuple[str, list[Any]]:
    """Start a durable run of ``script`` with a worker in this process (with ``started_in``
    current, if given), wait for it to answer; its workflow id and its history's events."""
    client = await Client.connect(address, interceptors=list(interceptors))
    registry = make_registry(ledger)
    task_queue, workflow_id = names()
    async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
        # the worker's tasks were made before the span: only the run's input can carry it
        current = nullcontext() if started_in is None else use_span(started_in)
        with current:
            handle = await start_run(
                client,
                registry,
                PROMPT,
                Task(script),
                task_queue=task_queue,
                workflow_id=workflow_id,
            )
        response = await handle.result()
    assert response.text is not None
    assert response.text.startswith("note #1: milk")
    history = await handle.handle.fetch_history()
    return workflow_id, list(history.events)


def carried(events: list[Any]) -> list[tuple[str, Any]]:
    """What the run's history carried as ``trace``: the workflow's input's, then each
    activity's (by activity type); ``None`` where the key is absent."""
    found: list[tuple[str, Any]] = []
    for event in events:
        if event.HasField("workflow_execution_started_event_attributes"):
            attributes = event.workflow_execution_started_event_attributes
            found.append(("workflow", _input(attributes.input).get("trace")))
        elif event.HasField("activity_task_scheduled_event_attributes"):
            attributes = event.activity_task_scheduled_event_attributes
            found.append((attributes.activity_type.name, _input(attributes.input).get("trace")))
    return found


def _input(payloads: Any) -> dict[str, Any]:
    (payload,) = payloads.payloads
    data = json.loads(payload.data)
    assert isinstance(data, dict)
    return data


def traceparent(context: SpanContext) -> str:
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


def ids(context: SpanContext) -> tuple[bytes, bytes]:
    """A span's trace id and span id as OTLP sends them."""
    return context.trace_id.to_bytes(16, "big"), context.span_id.to_bytes(8, "big")


def worker_spans(spans: list[Span]) -> tuple[list[Span], list[Span]]:
    """The run's ``chat`` spans (by turn) and ``execute_tool`` spans."""
    chats = sorted(
        (span for span in spans if span.name.startswith("chat")),
        key=lambda span: attributes_of(span)["affordance.turn"],
    )
    tools = [span for span in spans if span.name.startswith("execute_tool")]
    return chats, tools


def ancestors(span: Span, spans: list[Span]) -> list[str]:
    """The names of ``span``'s ancestors among ``spans``, nearest first."""
    by_id = {found.span_id: found for found in spans}
    names: list[str] = []
    parent = by_id.get(span.parent_span_id)
    while parent is not None:
        names.append(parent.name)
        parent = by_id.get(parent.parent_span_id)
    return names


def test_the_worker_spans_of_a_durable_run_are_children_of_the_span_it_was_started_in(
    temporal_server: DevServer, tmp_path: Path, collector: Collector
) -> None:
    with instrumented(collector) as provider:
        caller = provider.get_tracer("test").start_span(CALLER)
        workflow_id, events = asyncio.run(
            run_durably(
                temporal_server.address, Ledger(tmp_path / "l.db"), "save", started_in=caller
            )
        )
        caller.end()

    caller_trace, caller_id = ids(caller.get_span_context())
    spans = collector.wait_for_spans({CALLER, TOOL_SPAN})
    chats, tools = worker_spans(spans)
    assert [attributes_of(chat)["affordance.turn"] for chat in chats] == [1, 2]
    assert len(tools) == 1
    for span in (*chats, *tools):
        assert span.trace_id == caller_trace
        assert span.parent_span_id == caller_id
        assert span.flags & 0x300 == 0x300  # the parent is remote: it came with the run's input
    for chat in chats:
        assert attributes_of(chat)["affordance.run.id"] == workflow_id
        assert attributes_of(chat)["gen_ai.provider.name"] == "scripted"
    assert attributes_of(tools[0])["gen_ai.tool.call.id"] == "call-add"
    assert {span.name for span in spans} == {CALLER, "chat", TOOL_SPAN}  # no invoke_agent span

    carrier = {"traceparent": traceparent(caller.get_span_context())}
    assert carried(events) == [
        ("workflow", carrier),
        (MODEL_ACTIVITY, carrier),
        (TOOL_ACTIVITY, carrier),
        (MODEL_ACTIVITY, carrier),
    ]


def test_a_resumed_run_keeps_the_trace_it_was_started_in(
    temporal_server: DevServer, tmp_path: Path, collector: Collector
) -> None:
    """The answer comes from another request (another span, another trace): the turns after
    it are still in the run's trace, under the span that started it."""
    ledger = Ledger(tmp_path / "l.db")

    async def scenario(provider: TracerProvider) -> Any:
        tracer = provider.get_tracer("test")
        client = await Client.connect(temporal_server.address)
        registry = make_registry(ledger)
        task_queue, workflow_id = names()
        async with durable_worker(client, registry, task_queue=task_queue, adapter=make_adapter()):
            with tracer.start_as_current_span(CALLER) as first:
                handle = await start_run(
                    client,
                    registry,
                    PROMPT,
                    Task("save-and-delete"),
                    task_queue=task_queue,
                    workflow_id=workflow_id,
                )
            settled = await handle.settled()
            assert [call.params for call in settled.pending] == [NoteRef(1)]
            with tracer.start_as_current_span("answer request"):
                attached = attach_run(client, registry, workflow_id, PROMPT)
                await attached.confirm("call-del", approve())
            await handle.result()
        return first

    with instrumented(collector) as provider:
        first = asyncio.run(scenario(provider))

    trace_id, span_id = ids(first.get_span_context())
    spans = collector.wait_for_spans({CALLER, "answer request", "execute_tool delete_note"})
    (answer,) = [span for span in spans if span.name == "answer request"]
    assert answer.trace_id != trace_id  # a trace of its own: it is not what the run joins
    chats, tools = worker_spans(spans)
    assert [attributes_of(chat)["affordance.turn"] for chat in chats] == [1, 2, 3]
    assert sorted(span.name for span in tools) == [TOOL_SPAN, "execute_tool delete_note"]
    for span in (*chats, *tools):
        assert (span.trace_id, span.parent_span_id) == (trace_id, span_id)


@pytest.mark.parametrize(
    "script",
    [
        "save",
        "parallel",
    ],
)
def test_with_temporals_tracing_interceptor_the_spans_nest_under_its_activity_spans(
    temporal_server: DevServer, tmp_path: Path, collector: Collector, script: str
) -> None:
    """Temporal propagates its own spans in its headers; its ``RunActivity`` span is current
    in the activity, and the run's spans nest under it rather than beside it: each under the
    span of its own activity (``model-<turn>``, ``tool-<turn>-<call id>``), all descendants of
    the caller's span. ``parallel``: two calls at once and one retried by Temporal (each
    attempt its own activity span)."""
    contrib = pytest.importorskip("temporalio.contrib.opentelemetry")
    with instrumented(collector) as provider:
        interceptor = contrib.TracingInterceptor(provider.get_tracer("temporal"))
        caller = provider.get_tracer("test").start_span(CALLER)
        workflow_id, _ = asyncio.run(
            run_durably(
                temporal_server.address,
                Ledger(tmp_path / "l.db"),
                script,
                started_in=caller,
                interceptors=(interceptor,),
            )
        )
        caller.end()

    caller_trace, _ = ids(caller.get_span_context())
    spans = collector.wait_for_spans({CALLER, TOOL_SPAN})
    by_id = {span.span_id: span for span in spans}
    chats, tools = worker_spans(spans)
    assert [attributes_of(chat)["affordance.turn"] for chat in chats] == [1, 2]
    for chat in chats:
        assert attributes_of(chat)["affordance.run.id"] == workflow_id
    calls = sorted(str(attributes_of(tool)["gen_ai.tool.call.id"]) for tool in tools)
    # parallel: flaky twice, its policy's two attempts (each an attempt of its activity)
    expected = ["call-a", "call-b", "call-c", "call-c"] if script == "parallel" else ["call-add"]
    assert calls == expected
    activities = [
        (chat, MODEL_ACTIVITY, f"model-{attributes_of(chat)['affordance.turn']}") for chat in chats
    ]
    activities += [
        (tool, TOOL_ACTIVITY, f"tool-1-{attributes_of(tool)['gen_ai.tool.call.id']}")
        for tool in tools
    ]
    for span, activity_type, activity_id in activities:
        assert span.trace_id == caller_trace
        parent = by_id[span.parent_span_id]
        assert parent.name == f"RunActivity:{activity_type}"
        assert attributes_of(parent)["temporalActivityID"] == activity_id
        assert ancestors(span, spans)[-1] == CALLER


def test_a_run_started_with_no_span_current_is_traced_on_its_worker_from_root_spans(
    temporal_server: DevServer, tmp_path: Path, collector: Collector
) -> None:
    """Nothing to join: the run carries no trace, and its worker's ``chat`` and
    ``execute_tool`` spans are roots — still traced, still counted — found by their run id."""
    with instrumented(collector):
        _, events = asyncio.run(
            run_durably(temporal_server.address, Ledger(tmp_path / "l.db"), "save")
        )

    assert [trace for _, trace in carried(events)] == [None, None, None, None]
    spans = collector.spans()
    assert sorted(span.name for span in spans) == ["chat", "chat", "execute_tool add_note"]
    assert all(span.parent_span_id == b"" for span in spans)
    assert len({attributes_of(span)["affordance.run.id"] for span in spans}) == 1


def test_an_uninstrumented_durable_run_carries_no_trace(
    temporal_server: DevServer, tmp_path: Path, collector: Collector
) -> None:
    """A span of the caller's is current, but affordance is not instrumented: no carrier is
    written, and the run's inputs are what they were before tracing existed."""
    provider = exporting_to(collector)
    try:
        caller = provider.get_tracer("test").start_span(CALLER)
        _, events = asyncio.run(
            run_durably(
                temporal_server.address,
                Ledger(tmp_path / "l.db"),
                "save",
                started_in=caller,
            )
        )
        caller.end()
    finally:
        provider.shutdown()

    assert [trace for _, trace in carried(events)] == [None, None, None, None]
    assert [span.name for span in collector.spans()] == [CALLER]


def test_a_tool_call_cut_short_on_its_worker_still_ends_its_span(telemetry: Telemetry) -> None:
    """The activity is cancelled while the handler runs (Temporal cancels it, the worker shuts
    down): the ``execute_tool`` span it opened, in the carried trace, ends anyway, failed —
    no span stays open on a long-lived worker."""
    started = asyncio.Event()

    async def wait_forever(params: None) -> ToolResult[None]:
        started.set()
        await asyncio.Event().wait()
        raise AssertionError("never released")

    registry = PromptRegistry()
    tools = [Tool[None, None](name="wait", description="Waits.", handler=wait_forever)]
    registry.add(
        "waiting",
        lambda: PromptTemplate(
            name="waiting", sections=[MarkdownSection(title="T", template="Wait.", tools=tools)]
        ),
    )
    call_input = ToolCallInput(
        PromptRef("waiting"),
        "run-cut",
        1,
        ToolCall("call-wait", "wait", "{}"),
        {},
        trace={"traceparent": TRACEPARENT},
    )
    environment = ActivityEnvironment()

    async def scenario() -> None:
        activities = DurableActivities(registry)
        running = asyncio.ensure_future(environment.run(activities.tool_call, to_data(call_input)))
        await started.wait()
        environment.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(scenario())
    (span,) = telemetry.named("execute_tool wait")
    assert span.end_time is not None
    assert span.status.status_code is StatusCode.ERROR
    assert span.parent is not None
    assert span.parent.span_id == int(TRACEPARENT.split("-")[2], 16)
