"""Faults the loopback server injects: reply helpers, and the named faults of the fault matrix.

The helpers (:func:`rate_limited`, :func:`server_error`, :func:`overloaded`, :func:`timeout`,
:func:`reset`, :func:`malformed_json`) are single replies to script. :func:`fault_reply` makes
a named fault out of the answer a provider's fake would have sent — half of it, a cut of it,
a stall in it — whatever its wire shape (JSON body, SSE or NDJSON stream), so a provider's
contract wire scripts the fault matrix's wire faults without knowing how each is sent:

==============================  ==============================================================
``rate-limited``                429 with ``Retry-After`` (seconds, ``retry_after``, a few ms by
                                default); the body ``error_body``
``rate-limited-no-retry-after`` 429 with no retry header: the client's own backoff decides
``server-error``                500 (meant for every request: see :data:`PERSISTENT_FAULTS`)
``overloaded``                  the provider's overloaded status (``overloaded_status``, 503)
``read-timeout``                a stall. A body: nothing at all until ``stall_s`` pass, then
                                the answer. A stream: the headers and the first event, then
                                ``stall_s`` between events. Either way the wait ends at once
                                when the client hangs up (its read timeout), and the handler
                                closes the connection: nothing is left open behind a test
``reset-mid-body``              a body: its headers and the first half of it, then a TCP
                                reset; a stream: two events, then a TCP reset
``cut-mid-event``               a stream: two events and half of the third (half an SSE event,
                                half an NDJSON line with no newline), then the body ends
                                cleanly, as a complete chunked response
``truncated-json``              a body: a 200 whose JSON is cut in half (the response itself
                                complete); a stream: the second event's JSON cut in half, its
                                framing (``data:`` line, newline) intact
``wrong-content-type``          a 200 ``text/html`` page
==============================  ==============================================================

A fault reply carries ``headers`` (a request id, say) and, for a stream, the answer's own.
Status faults answer with ``error``, by default :func:`error_body`'s envelope: give the
provider's own (or build those replies in it, and leave :data:`SHAPE_FAULTS` to this module).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

from affordance_testing.loopback.replies import (
    REPLY_TYPES,
    RETRY_COUNT_HEADER,
    DelayedReply,
    JsonReply,
    RawReply,
    RecordedRequest,
    Reply,
    ResetReply,
    Responder,
    ScriptEntry,
    SseEvent,
    SseReply,
    StreamReply,
    dumps,
)

__all__ = [
    "FAULTS",
    "HTML_PAGE",
    "PERSISTENT_FAULTS",
    "SHAPE_FAULTS",
    "Fault",
    "error_body",
    "fault_reply",
    "first_attempt_only",
    "malformed_json",
    "overloaded",
    "rate_limited",
    "reset",
    "server_error",
    "timeout",
]


def error_body(message: str, error_type: str, code: str | None = None) -> dict[str, Any]:
    """``{"type": "error", "error": {"message", "type", "param", "code"}}``: an error envelope
    both OpenAI (reading ``body["error"]``) and Anthropic (``body["error"]["type"]``) parse."""
    error = {"message": message, "type": error_type, "param": None, "code": code}
    return {"type": "error", "error": error}


def rate_limited(
    *,
    retry_after_ms: int | None = None,
    retry_after_s: float | None = None,
    status: int = 429,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
) -> JsonReply:
    """A 429 with ``retry-after-ms`` and/or ``retry-after``; with neither given,
    ``retry-after-ms: 1`` so SDK retries are immediate."""
    if retry_after_ms is None and retry_after_s is None:
        retry_after_ms = 1
    all_headers: dict[str, str] = {}
    if retry_after_ms is not None:
        all_headers["retry-after-ms"] = str(retry_after_ms)
    if retry_after_s is not None:
        all_headers["retry-after"] = f"{retry_after_s:g}"
    all_headers.update(headers or {})
    if body is None:
        body = error_body("loopback: rate limited", "rate_limit_error", "rate_limit_exceeded")
    return JsonReply(body, status=status, headers=all_headers)


def server_error(
    status: int = 500, *, body: Any = None, headers: Mapping[str, str] | None = None
) -> JsonReply:
    """A server-side failure; SDKs retry any status of 500 and above."""
    if body is None:
        body = error_body(f"loopback: server error {status}", "server_error")
    return JsonReply(body, status=status, headers=headers or {})


def overloaded(
    status: int = 503, *, body: Any = None, headers: Mapping[str, str] | None = None
) -> JsonReply:
    """An overload reply: OpenAI answers 503, Anthropic 529 (pass ``status=529``)."""
    if body is None:
        body = error_body("loopback: overloaded", "overloaded_error")
    return JsonReply(body, status=status, headers=headers or {})


def malformed_json(
    status: int = 200, body: bytes = b'{"id": "truncated", "choices": [{"index": 0,'
) -> RawReply:
    """A body labelled ``application/json`` that does not parse."""
    return RawReply(body, status=status, content_type="application/json")


def timeout(seconds: float, then: Reply | None = None) -> DelayedReply:
    """Hold the reply for ``seconds`` so a client with a shorter timeout gives up first."""
    if then is None:
        then = server_error(504, body=error_body("loopback: delayed reply", "timeout"))
    return DelayedReply(seconds, then)


def reset(*, abortive: bool = True) -> ResetReply:
    """Drop the connection after reading the request, without any response."""
    return ResetReply(abortive)


def first_attempt_only(fault: Reply, then: ScriptEntry) -> Responder:
    """A responder sending ``fault`` when ``x-stainless-retry-count`` is 0 and ``then`` on retries.

    Unlike scripting the fault in the FIFO, this stays right under concurrent requests. A request
    without the header is an error, reported as an unanswered request.
    """

    def respond(request: RecordedRequest) -> Reply:
        count = request.retry_count
        if count is None:
            raise LookupError(f"first_attempt_only needs the {RETRY_COUNT_HEADER} header")
        if count == 0:
            return fault
        return then if isinstance(then, REPLY_TYPES) else then(request)

    return respond


# --- Named faults ---------------------------------------------------------------------------

Fault = Literal[
    "rate-limited",
    "rate-limited-no-retry-after",
    "server-error",
    "overloaded",
    "read-timeout",
    "reset-mid-body",
    "cut-mid-event",
    "truncated-json",
    "wrong-content-type",
]
"""The faults :func:`fault_reply` makes: the wire faults of ``affordance_testing.faults`` that
need no provider's format (``no-choices`` and ``empty-answer`` are answers in it)."""

FAULTS: Mapping[Fault, str] = MappingProxyType(
    {
        "rate-limited": "429 with Retry-After asking for a few milliseconds",
        "rate-limited-no-retry-after": "429 without any retry header",
        "server-error": "500",
        "overloaded": "the overloaded status (503 unless told)",
        "read-timeout": "a stall that ends when the client hangs up (after a stream's first event)",
        "reset-mid-body": "half a body, or two events of a stream, then a TCP reset",
        "cut-mid-event": "two events of a stream and half of the third, then a clean end",
        "truncated-json": "a 200 body, or a stream's second event, whose JSON is cut in half",
        "wrong-content-type": "a 200 text/html page",
    }
)
"""Each named fault, in a line (the module docstring has the details)."""

SHAPE_FAULTS: frozenset[Fault] = frozenset(
    {"read-timeout", "reset-mid-body", "cut-mid-event", "truncated-json", "wrong-content-type"}
)
"""The faults made of the answer alone (cut, stalled, replaced): no error body of the
provider's own is involved, so a provider's fake can leave them all to :func:`fault_reply`."""

PERSISTENT_FAULTS: frozenset[Fault] = frozenset({"server-error", "read-timeout"})
"""The faults the fault matrix sends on every request (set as a route's responder), not once."""

HTML_PAGE = b"<html><body><h1>Service page</h1></body></html>"
"""What ``wrong-content-type`` answers with."""


def fault_reply(
    fault: Fault,
    answer: JsonReply | StreamReply,
    *,
    headers: Mapping[str, str] | None = None,
    error: Any = None,
    overloaded_status: int = 503,
    retry_after: str = "0.001",
    stall_s: float = 5.0,
) -> Reply:
    """The reply for ``fault``, made of ``answer`` (what the server would have sent: a JSON
    body or a stream of at least three events); see the module docstring for each. ``error``
    is the body of a status fault (default: :func:`error_body`'s envelope)."""
    extra = dict(headers or {})
    if fault in ("rate-limited", "rate-limited-no-retry-after", "server-error", "overloaded"):
        status = {"server-error": 500, "overloaded": overloaded_status}.get(fault, 429)
        if fault == "rate-limited":
            extra["retry-after"] = retry_after
        body = error if error is not None else error_body(f"loopback: {fault}", fault)
        return JsonReply(body, status=status, headers=extra)
    if fault == "wrong-content-type":
        return RawReply(HTML_PAGE, content_type="text/html", headers=extra)
    if isinstance(answer, JsonReply):
        return _body_fault(fault, answer, extra, stall_s)
    if len(answer.events) < 3:
        raise ValueError(f"{fault!r} needs a stream of at least three events")
    stream = dataclasses.replace(answer, headers={**answer.headers, **extra})
    if fault == "read-timeout":
        return dataclasses.replace(stream, interval_s=stall_s)
    if fault == "reset-mid-body":
        return dataclasses.replace(stream, cut_after=2)
    if fault == "cut-mid-event":
        return dataclasses.replace(stream, cut_after=2, cut_mid_event=True, cut_abortive=False)
    if fault == "truncated-json":
        return _truncate_event(stream, 1)
    raise ValueError(f"unknown fault {fault!r}; the faults are {', '.join(FAULTS)}")


def _body_fault(
    fault: Fault, answer: JsonReply, headers: Mapping[str, str], stall_s: float
) -> Reply:
    whole = dumps(answer.body).encode()
    merged = {**answer.headers, **headers}
    if fault == "read-timeout":
        return DelayedReply(stall_s, dataclasses.replace(answer, headers=merged))
    if fault == "reset-mid-body":
        return RawReply(whole, headers=merged, cut_after_bytes=len(whole) // 2)
    if fault == "truncated-json":
        return RawReply(whole[: len(whole) // 2], headers=merged)
    if fault == "cut-mid-event":
        raise ValueError("cut-mid-event cuts a stream; a whole body has no events")
    raise ValueError(f"unknown fault {fault!r}; the faults are {', '.join(FAULTS)}")


def _truncate_event(stream: StreamReply, index: int) -> StreamReply:
    """``stream`` with event ``index``'s JSON cut in half, its framing intact."""
    if isinstance(stream, SseReply):
        event = stream.events[index]
        text = event.data if isinstance(event.data, str) else dumps(event.data)
        broken: Any = SseEvent(text[: len(text) // 2], event=event.event)
    else:
        line = stream.events[index]
        text = line if isinstance(line, str) else dumps(line)
        broken = str(text[: len(text) // 2])  # a plain str goes out verbatim
    events = [*stream.events[:index], broken, *stream.events[index + 1 :]]
    return dataclasses.replace(stream, events=events)
