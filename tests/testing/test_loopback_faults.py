"""The loopback kit of affordance-testing, seen from a plain HTTP client: the NDJSON shape, the
named faults as their documentation says, the requests recorded, and a stall that ends the
moment the client hangs up. Uses the ``loopback_server`` fixture of the distribution's
``pytest11`` plugin."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from affordance_testing.loopback import (
    FAULTS,
    HTML_PAGE,
    JsonReply,
    LoopbackServer,
    NdjsonReply,
    SseEvent,
    SseReply,
    fault_reply,
)

ANSWER = JsonReply({"message": {"content": "Hello there, all of you."}, "done": True})
LINES = [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4, "done": True}]


@contextmanager
def post(
    server: LoopbackServer, body: Any, timeout: float = 5.0
) -> Iterator[http.client.HTTPResponse]:
    """``body`` posted to ``/api/chat``: the response, its connection closed after the block."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        connection.request("POST", "/api/chat", json.dumps(body), {"x-test": "yes"})
        yield connection.getresponse()
    finally:
        connection.close()


def test_an_ndjson_stream_sends_one_json_value_a_line(loopback_server: LoopbackServer) -> None:
    loopback_server.script("/api/chat", NdjsonReply(LINES))

    with post(loopback_server, {"stream": True}) as response:
        assert response.getheader("content-type") == "application/x-ndjson"
        assert [json.loads(line) for line in response.read().splitlines()] == LINES


def test_each_request_is_recorded_with_its_method_path_headers_and_raw_body(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.script("/api/chat", ANSWER)

    with post(loopback_server, {"model": "m"}) as response:
        response.read()

    (request,) = loopback_server.requests
    assert (request.method, request.path, request.headers["x-test"]) == ("POST", "/api/chat", "yes")
    assert (request.raw_body, request.body) == (b'{"model": "m"}', {"model": "m"})


def test_the_status_faults_carry_their_status_headers_and_error_body(
    loopback_server: LoopbackServer,
) -> None:
    headers = {"x-request-id": "req_1"}
    for fault, status in [
        ("rate-limited", 429),
        ("rate-limited-no-retry-after", 429),
        ("server-error", 500),
        ("overloaded", 529),
    ]:
        error = {"error": fault}
        reply = fault_reply(fault, ANSWER, headers=headers, error=error, overloaded_status=529)
        loopback_server.script("/api/chat", reply)
        with post(loopback_server, {}) as response:
            assert (response.status, json.loads(response.read())) == (status, error)
            assert response.getheader("x-request-id") == "req_1"
            retry_after = "0.001" if fault == "rate-limited" else None
            assert response.getheader("retry-after") == retry_after, fault


def test_a_truncated_body_is_a_complete_response_holding_half_the_json(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.script("/api/chat", fault_reply("truncated-json", ANSWER))
    whole = json.dumps(ANSWER.body).encode()

    with post(loopback_server, {}) as response:
        assert (response.status, response.read()) == (200, whole[: len(whole) // 2])


def test_a_reset_mid_body_sends_half_the_body_then_drops_the_connection(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.script("/api/chat", fault_reply("reset-mid-body", ANSWER))

    with (
        post(loopback_server, {}) as response,
        pytest.raises((http.client.IncompleteRead, ConnectionError)),
    ):
        response.read()


def test_a_cut_ndjson_stream_ends_cleanly_inside_its_third_line(
    loopback_server: LoopbackServer,
) -> None:
    loopback_server.script("/api/chat", fault_reply("cut-mid-event", NdjsonReply(LINES)))

    with post(loopback_server, {}) as response:
        body = response.read()

    *whole, partial = body.split(b"\n")
    assert [json.loads(line) for line in whole] == LINES[:2]
    assert 0 < len(partial) < len(b'{"n": 3}')
    assert partial == b'{"n": 3}'[: len(partial)]


def test_a_truncated_sse_event_keeps_its_framing(loopback_server: LoopbackServer) -> None:
    events = SseReply([SseEvent({"n": n}) for n in range(1, 4)])
    loopback_server.script("/api/chat", fault_reply("truncated-json", events))

    with post(loopback_server, {}) as response:
        body = response.read().decode()

    assert body.split("\n\n")[:3] == ['data: {"n": 1}', 'data: {"n"', 'data: {"n": 3}']


def test_a_stall_ends_as_soon_as_the_client_hangs_up(loopback_server: LoopbackServer) -> None:
    loopback_server.script("/api/chat", fault_reply("read-timeout", ANSWER, stall_s=20.0))
    started = time.monotonic()

    with pytest.raises(TimeoutError), post(loopback_server, {}, timeout=0.2) as response:
        response.read()

    assert loopback_server.wait_idle(2.0), "the server still holds the connection"
    assert time.monotonic() - started < 3.0


def test_a_stalled_stream_sends_its_first_line_then_waits(loopback_server: LoopbackServer) -> None:
    loopback_server.script("/api/chat", fault_reply("read-timeout", NdjsonReply(LINES), stall_s=20))
    with post(loopback_server, {}, timeout=0.5) as response:
        assert json.loads(response.readline()) == LINES[0]
        with pytest.raises((TimeoutError, socket.timeout)):
            response.readline()
    assert loopback_server.wait_idle(2.0)


def test_a_wrong_content_type_is_an_html_page(loopback_server: LoopbackServer) -> None:
    loopback_server.script("/api/chat", fault_reply("wrong-content-type", ANSWER))

    with post(loopback_server, {}) as response:
        assert (response.getheader("content-type"), response.read()) == ("text/html", HTML_PAGE)


def test_every_named_fault_makes_a_reply_of_a_stream() -> None:
    for fault in FAULTS:
        assert fault_reply(fault, NdjsonReply(LINES)) is not None


def test_a_stream_too_short_to_cut_is_refused() -> None:
    with pytest.raises(ValueError, match="at least three events"):
        fault_reply("cut-mid-event", NdjsonReply(LINES[:2]))
