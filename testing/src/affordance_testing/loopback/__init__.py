"""The loopback fault server: a real HTTP/1.1 server on 127.0.0.1, on threads, that answers
real clients from a script and records every request — for testing a provider adapter (or any
HTTP client) over the wire it will meet, with none of the network.

Three wire shapes (:mod:`.replies`): a JSON body (:class:`JsonReply`), an SSE stream
(:class:`SseReply`) and an NDJSON stream (:class:`NdjsonReply`). Faults (:mod:`.faults`) by
name — 429 with and without ``Retry-After``, 5xx, a reset mid-body, half a body, a cut stream,
a stall that ends when the client hangs up — made of the answer the server would have sent
(:func:`fault_reply`). Start it with ``with LoopbackServer() as server:`` or the
``loopback_server`` fixture (this distribution's pytest plugin)::

    with LoopbackServer() as server:
        server.script("/api/chat", NdjsonReply([{"message": {"content": "Hi"}}, {"done": True}]))
        httpx.post(server.base_url + "/api/chat", json={"stream": True})
        (request,) = server.requests  # method, path, headers, raw_body, body
"""

from affordance_testing.loopback.faults import (
    FAULTS,
    HTML_PAGE,
    PERSISTENT_FAULTS,
    SHAPE_FAULTS,
    Fault,
    error_body,
    fault_reply,
    first_attempt_only,
    malformed_json,
    overloaded,
    rate_limited,
    reset,
    server_error,
    timeout,
)
from affordance_testing.loopback.replies import (
    MAX_DELAY_S,
    REPLY_TYPES,
    RETRY_COUNT_HEADER,
    DelayedReply,
    JsonReply,
    NdjsonReply,
    RawJson,
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
from affordance_testing.loopback.server import LoopbackServer

__all__ = [
    "FAULTS",
    "HTML_PAGE",
    "MAX_DELAY_S",
    "PERSISTENT_FAULTS",
    "REPLY_TYPES",
    "RETRY_COUNT_HEADER",
    "SHAPE_FAULTS",
    "DelayedReply",
    "Fault",
    "JsonReply",
    "LoopbackServer",
    "NdjsonReply",
    "RawJson",
    "RawReply",
    "RecordedRequest",
    "Reply",
    "ResetReply",
    "Responder",
    "ScriptEntry",
    "SseEvent",
    "SseReply",
    "StreamReply",
    "dumps",
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
