"""The trace context a run hands to work in another process: the instrumentor installs core's
propagator (W3C ``traceparent``/``tracestate``) and takes it off again; work joined from a
carrier — in a context that never saw the carrier's span — is in the carrier's trace; a request
of a run this process never started ("joined") gets its span under the span current then (a
root when none is), and is forgotten once done; hostile carriers join nothing and break
nothing."""

from __future__ import annotations

import contextvars
from typing import Any

import pytest
from opentelemetry import trace
from otel_support import Telemetry, canary_prompt

from affordance import EventBus
from affordance.runtime import (
    ModelRequest,
    ProviderTurn,
    RequestEvents,
    joined_trace,
    trace_carrier,
)

TRACE_ID = 0x5B8EFFF798038103D269B633813FC60C
PARENT_ID = 0xEEE19B7EC3C1B174
TRACEPARENT = f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"


def request(run_id: str, turn: int = 1) -> ModelRequest:
    rendered = canary_prompt().render()
    return ModelRequest("canary", run_id, turn, rendered, None, (), rendered.tools, ())


def send_remote_request(run_id: str, turn: int = 1) -> None:
    """What a worker does for a run started elsewhere: one request, its events published."""
    events = RequestEvents(EventBus().publish, "openai", "gpt-test", "https://api.openai.com/v1")
    events.send(lambda _: ProviderTurn(text="hi"), request(run_id, turn))


def test_instrumenting_installs_the_propagator_and_uninstrumenting_takes_it_off():
    telemetry = Telemetry()
    tracer = telemetry.provider.get_tracer("test")
    try:
        assert trace_carrier() == {}  # no span current
        with tracer.start_as_current_span("caller") as caller:
            carrier = trace_carrier()
            context = caller.get_span_context()
        ids = f"{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"
        assert carrier == {"traceparent": f"00-{ids}"}
    finally:
        telemetry.close()
    with tracer.start_as_current_span("caller"):
        assert trace_carrier() == {}


def test_a_request_joined_from_a_carrier_is_in_its_trace(telemetry: Telemetry):
    def worker() -> None:
        with joined_trace({"traceparent": TRACEPARENT}):
            send_remote_request("run-remote")
        assert not trace.get_current_span().get_span_context().is_valid  # detached again

    contextvars.Context().run(worker)  # a context that never saw the caller's span
    (chat,) = telemetry.named("chat gpt-test")
    assert chat.context.trace_id == TRACE_ID
    assert chat.parent is not None
    assert chat.parent.span_id == PARENT_ID
    assert chat.parent.is_remote
    assert (chat.attributes or {})["affordance.run.id"] == "run-remote"
    assert (chat.attributes or {})["server.address"] == "api.openai.com"
    assert (chat.attributes or {})["server.port"] == 443


def test_a_joined_run_is_forgotten_once_nothing_of_it_is_open(telemetry: Telemetry):
    with joined_trace({"traceparent": TRACEPARENT}):
        send_remote_request("run-remote", turn=1)
    send_remote_request("run-remote", turn=2)  # joined anew: no span current now, so a root
    first, second = sorted(telemetry.named("chat gpt-test"), key=lambda s: s.start_time or 0)
    assert first.context.trace_id == TRACE_ID
    assert (second.attributes or {})["affordance.turn"] == 2
    assert second.parent is None
    assert second.context.trace_id != TRACE_ID


def test_a_span_already_current_is_kept(telemetry: Telemetry):
    """A transport that propagated the trace itself (Temporal's interceptor) has its span
    current already: the request nests under it, not beside it."""
    tracer = telemetry.provider.get_tracer("test")
    with (
        tracer.start_as_current_span("run activity") as local,
        joined_trace({"traceparent": TRACEPARENT}),
    ):
        assert trace.get_current_span() is local
        send_remote_request("run-remote")
    (chat,) = telemetry.named("chat gpt-test")
    assert chat.parent is not None
    assert chat.parent.span_id == local.get_span_context().span_id


@pytest.mark.parametrize(
    "carrier",
    [
        {"traceparent": 5},
        {"traceparent": "x" * 10_000},
        {"traceparent": "00-not-hex-01"},
        {"traceparent": ["00", TRACEPARENT]},
        {"tracestate": "a=b"},
        [TRACEPARENT],
        "traceparent",
        None,
    ],
    ids=["number", "huge", "malformed", "list", "state-only", "not-a-mapping", "string", "none"],
)
def test_a_hostile_carrier_joins_nothing_and_breaks_nothing(carrier: Any, telemetry: Telemetry):
    with joined_trace(carrier):
        assert not trace.get_current_span().get_span_context().is_valid
        send_remote_request("run-remote")
    (chat,) = telemetry.named("chat")  # nothing current to join: a root span, no error
    assert chat.parent is None
    assert chat.context.trace_id != TRACE_ID
