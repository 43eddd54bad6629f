"""Tracing (``taskchat.telemetry``): with ``OTEL_EXPORTER_OTLP_ENDPOINT`` set, a real uvicorn
serving the app sends, through the real OTLP/HTTP exporters, to a collector on loopback
(``otlp_collector.py``): each chat request — plain or streamed — is one trace, its agent run
under its HTTP server span, the tool call among the run's spans; no byte of the user's message
leaves unless content capture is on; stopping the server sends what was buffered. Without the
variable nothing of OpenTelemetry is installed, nor needed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from fastapi.testclient import TestClient

from taskchat.telemetry import ENDPOINT_ENV, telemetry_from_env

if TYPE_CHECKING:
    from opentelemetry.proto.trace.v1.trace_pb2 import Span
    from otlp_collector import Collector

CANARY = "canary-5e1f7a"
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
OTEL_MODULES = (
    "affordance_otel",
    "opentelemetry.sdk",
    "opentelemetry.exporter.otlp.proto.http",
    "opentelemetry.instrumentation.asgi",
    "opentelemetry.proto",
)
# what an operator's shell could set that would change what is exported, or where
OPERATOR_ENV = (
    CAPTURE_CONTENT_ENV,
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_SEMCONV_STABILITY_OPT_IN",
    "OTEL_SDK_DISABLED",
)
SERVER = 2  # Span.SpanKind.SPAN_KIND_SERVER


@pytest.fixture
def collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[Collector]:
    """A collector on loopback, and ``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at it (requested
    before ``live_server``, it closes after the servers have stopped)."""
    for module in OTEL_MODULES:
        pytest.importorskip(module, reason=f"{module} is not installed (taskchat's otel extra)")
    from otlp_collector import Collector

    from affordance_otel import AffordanceInstrumentor

    for name in OPERATOR_ENV:
        monkeypatch.delenv(name, raising=False)
    # an hour between exports: all that arrives is what stopping the server sent
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000")
    monkeypatch.setenv("OTEL_METRIC_EXPORT_INTERVAL", "3600000")
    made = Collector()
    monkeypatch.setenv(ENDPOINT_ENV, made.endpoint)
    yield made
    made.close()
    if AffordanceInstrumentor().is_instrumented_by_opentelemetry:  # a failed test's server
        AffordanceInstrumentor().uninstrument()


def _chat(url: str, path: str, message: str, read_events: Callable[[str], Any]) -> dict[str, Any]:
    """One chat request; its reply (for a stream, the final ``reply`` event)."""
    response = httpx.post(f"{url}{path}", json={"message": message}, timeout=30)
    assert response.status_code == 200, response.text
    if not path.endswith("/stream"):
        return dict(response.json())
    name, final = read_events(response.text)[-1]
    assert name == "reply", final
    return dict(final)


def _ancestors(span: Span, spans: list[Span]) -> list[Span]:
    by_id = {s.span_id: s for s in spans}
    found = []
    while span.parent_span_id in by_id:
        span = by_id[span.parent_span_id]
        found.append(span)
    return found


def _service_names(collector: Collector, path: str) -> set[object]:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from otlp_collector import value

    names: set[object] = set()
    for body in collector.bodies(path):
        if path == "/v1/traces":
            resources = [
                r.resource for r in ExportTraceServiceRequest.FromString(body).resource_spans
            ]
        else:
            request = ExportMetricsServiceRequest.FromString(body)
            resources = [r.resource for r in request.resource_metrics]
        for resource in resources:
            names |= {value(kv.value) for kv in resource.attributes if kv.key == "service.name"}
    return names


def _metric_names(collector: Collector) -> set[str]:
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
    )

    return {
        metric.name
        for body in collector.bodies("/v1/metrics")
        for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }


@pytest.mark.parametrize("path", ["/api/v1/chat", "/api/v1/chat/stream"])
def test_a_chat_request_is_one_trace_with_its_run_under_its_server_span_and_no_content(
    collector: Collector,
    live_server: Callable[..., Any],
    sse_events: Callable[[str], Any],
    path: str,
) -> None:
    from otlp_collector import attributes_of

    from affordance_otel import AffordanceInstrumentor

    server = live_server()
    reply = _chat(server.url, path, f"add a task to buy {CANARY} seeds", sse_events)
    assert reply["reply"] == f"Created task #1 “Buy {CANARY} seeds” (priority medium)."
    assert collector.received == []  # held in the batch...
    server.stop()  # ...until the server stops, and its providers shut down

    spans = collector.spans()
    (request,) = [s for s in spans if s.kind == SERVER]
    assert request.name == f"POST {path}"
    assert attributes_of(request)["http.route"] == path
    assert attributes_of(request)["http.status_code"] == 200
    assert {s.trace_id for s in spans} == {request.trace_id}
    (agent,) = [s for s in spans if s.name.startswith("invoke_agent ")]
    assert request in _ancestors(agent, spans)
    under_agent = sorted(s.name for s in spans if agent in _ancestors(s, spans))
    assert under_agent == ["chat", "chat", "execute_tool create_task"]
    assert len(spans) == 5
    for at, body in collector.received:  # every byte sent, traces and metrics alike
        assert CANARY.encode() not in body, at
    assert _service_names(collector, "/v1/traces") == {"taskchat"}
    assert _service_names(collector, "/v1/metrics") == {"taskchat"}
    metrics = _metric_names(collector)
    assert "gen_ai.client.operation.duration" in metrics  # affordance-otel's
    assert "http.server.active_requests" in metrics  # the ASGI middleware's
    assert not AffordanceInstrumentor().is_instrumented_by_opentelemetry


def test_an_approved_call_is_traced_under_the_request_that_confirmed_it(
    collector: Collector, live_server: Callable[..., Any]
) -> None:
    """The run that asked ended with its request; the approval's request runs the call outside
    any run, and its ``execute_tool`` span is among that request's spans, in its trace."""
    from otlp_collector import attributes_of

    server = live_server()
    url = f"{server.url}/api/v1/chat"
    added = httpx.post(url, json={"message": "add a task to water the plants"}).json()
    conversation = added["conversation_id"]
    asked = httpx.post(
        url, json={"conversation_id": conversation, "message": "delete water the plants"}
    ).json()
    [pending] = asked["pending_confirmations"]
    approved = httpx.post(
        url,
        json={
            "conversation_id": conversation,
            "message": "",
            "confirmations": {pending["call_id"]: "approve"},
        },
    ).json()
    assert approved["reply"] == "Deleted task #1 “Water the plants”."
    server.stop()

    spans = collector.spans()
    requests = [s for s in spans if s.kind == SERVER]
    assert len(requests) == 3
    (call,) = [s for s in spans if s.name == "execute_tool delete_task"]
    assert requests[2] in _ancestors(call, spans)
    assert call.trace_id == requests[2].trace_id
    attributes = attributes_of(call)
    assert attributes["gen_ai.tool.call.id"] == pending["call_id"]
    assert attributes["gen_ai.tool.type"] == "function"
    assert "error.type" not in attributes
    # the asking request's run made no span for the call it held
    assert not [s for s in spans if s.name == "execute_tool delete_task" and s is not call]


@pytest.mark.slow
def test_a_durable_turn_is_traced_under_its_request_from_the_temporal_worker(
    collector: Collector, live_server: Callable[..., Any], temporal_server: Any
) -> None:
    """``--temporal`` with the worker inside the server: the run's requests and calls execute in
    Temporal activities, and their spans join the chat request's trace under its server span
    (the trace context travels in the workflow's input); a durable run has no ``invoke_agent``
    span (it could begin in one process and end in another)."""
    pytest.importorskip("affordance_temporal", reason="affordance-temporal is not installed")
    from otlp_collector import attributes_of

    server = live_server(
        temporal=temporal_server.address,
        task_queue=f"taskchat-otel-{uuid.uuid4().hex[:12]}",
        temporal_worker=True,
    )
    reply = _chat(server.url, "/api/v1/chat", f"add a task to buy {CANARY} seeds", lambda _: [])
    assert reply["reply"] == f"Created task #1 “Buy {CANARY} seeds” (priority medium)."
    server.stop()

    spans = collector.spans()
    (request,) = [s for s in spans if s.kind == SERVER]
    ours = [s for s in spans if s.name.startswith(("chat", "execute_tool", "invoke_agent"))]
    assert sorted(s.name for s in ours) == ["chat", "chat", "execute_tool create_task"]
    for span in ours:
        assert span.trace_id == request.trace_id
        assert request in _ancestors(span, spans)
        assert attributes_of(span)["affordance.run.id"]
    assert len({attributes_of(s)["affordance.run.id"] for s in ours}) == 1
    for at, body in collector.received:
        assert CANARY.encode() not in body, at


def test_a_request_continues_the_callers_trace_and_names_its_route(
    collector: Collector, live_server: Callable[..., Any]
) -> None:
    server = live_server()
    caller_trace, caller_span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    chat = httpx.post(
        f"{server.url}/api/v1/chat",
        json={"message": "add a task to water the plants"},
        headers={"traceparent": f"00-{caller_trace}-{caller_span}-01"},
    )
    conversation = chat.json()["conversation_id"]
    assert httpx.get(f"{server.url}/api/v1/conversations/{conversation}").status_code == 200
    server.stop()

    spans = collector.spans()
    requests = [s for s in spans if s.kind == SERVER]
    assert [s.name for s in requests] == [
        "POST /api/v1/chat",
        "GET /api/v1/conversations/{conversation_id}",  # the route, not the path
    ]
    assert requests[0].trace_id.hex() == caller_trace
    assert requests[0].parent_span_id.hex() == caller_span
    (agent,) = [s for s in spans if s.name.startswith("invoke_agent ")]
    assert agent.trace_id.hex() == caller_trace


def test_content_is_exported_only_when_the_operator_turns_capture_on(
    collector: Collector,
    live_server: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from otlp_collector import attributes_of

    monkeypatch.setenv(CAPTURE_CONTENT_ENV, "true")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "taskchat-eu")
    server = live_server()
    httpx.post(f"{server.url}/api/v1/chat", json={"message": f"add a task to buy {CANARY}"})
    server.stop()

    (agent,) = [s for s in collector.spans() if s.name.startswith("invoke_agent ")]
    assert CANARY in str(attributes_of(agent)["gen_ai.input.messages"])
    assert _service_names(collector, "/v1/traces") == {"taskchat-eu"}


def test_without_the_endpoint_variable_nothing_is_installed(
    make_app: Callable[..., Any], new_chat: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENDPOINT_ENV, raising=False)
    global_provider = _global_tracer_provider()
    assert telemetry_from_env() is None
    app = make_app()
    with TestClient(app) as client:
        new_chat(client).say("add a task to water the plants")
        assert [m.cls.__name__ for m in app.user_middleware] == ["RequestIdMiddleware"]
        assert not _affordance_instrumented()
    assert _global_tracer_provider() is global_provider  # none set (or replaced)


def _affordance_instrumented() -> bool:
    try:
        from affordance_otel import AffordanceInstrumentor
    except ImportError:
        return False
    return bool(AffordanceInstrumentor().is_instrumented_by_opentelemetry)


def _global_tracer_provider() -> object:
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer_provider()


# OpenTelemetry's SDK, exporters and instrumentations and affordance-otel made uninstallable
# (fastapi may import the OpenTelemetry API itself: that stays)
UNINSTALLED = """
    import sys
    from importlib.abc import MetaPathFinder

    ABSENT = ("affordance_otel", "opentelemetry.sdk", "opentelemetry.exporter",
              "opentelemetry.instrumentation", "opentelemetry.proto")

    class Uninstalled(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.startswith(ABSENT):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Uninstalled())
"""


def _run_python(code: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(UNINSTALLED) + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**keep, **env},
    )


def test_taskchat_runs_without_opentelemetry_installed(tmp_path: Path) -> None:
    done = _run_python(
        """
        from fastapi.testclient import TestClient
        from taskchat.app import create_app
        from taskchat.settings import Settings

        with TestClient(create_app(Settings(database_url=sys.argv[1]))) as client:
            reply = client.post("/api/v1/chat", json={"message": "add a task to water it"})
        print(reply.status_code, reply.json()["reply"])
        """,
        f"sqlite:///{tmp_path / 'taskchat.db'}",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "200 Created task #1 “Water it” (priority medium).\n"


def test_serve_with_the_endpoint_variable_but_no_opentelemetry_says_what_to_install(
    tmp_path: Path,
) -> None:
    done = _run_python(
        """
        from taskchat.cli import main

        sys.exit(main(["serve", "--database-url", sys.argv[1], "--port", "9"]))
        """,
        f"sqlite:///{tmp_path / 'taskchat.db'}",
        OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318",
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        "taskchat: error: OTEL_EXPORTER_OTLP_ENDPOINT is set, but OpenTelemetry's packages are "
        "not installed (pip install 'taskchat[otel]'): No module named "
    )
    assert done.stdout == ""
