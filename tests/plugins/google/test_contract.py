"""The adapter contract (``affordance_testing.contract``) over the real ``google-genai`` SDK and
the loopback server: plain and streamed, sync (``client``) and async (``client.aio``), and the
fault matrix."""

from __future__ import annotations

import dataclasses
import importlib.util
import ssl
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from fault_profiles import GOOGLE
from google import genai
from google.genai import types
from loopback import (
    JsonReply,
    LoopbackServer,
    RawJson,
    RecordedRequest,
    Reply,
    SseReply,
    function_call_part,
    generate_response,
    google_error,
    google_server,
    google_stream,
    text_part,
    usage_metadata,
)
from loopback.google_wire import candidate
from stream_leaks import EARLY_EXITS, LeavesStreamsOpen, check_it_fails

from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import FakeClock
from affordance_google import GoogleAdapter
from affordance_testing.contract import AdapterContract
from affordance_testing.faults import FAULT_REQUEST_ID, WireFault
from affordance_testing.loopback import SHAPE_FAULTS, fault_reply

FAULT_TEXT = "This answer stops somewhere in the middle."
_PERSISTENT = frozenset({"server-error", "read-timeout"})
_REQUEST_ID = {"x-request-id": FAULT_REQUEST_ID}


def google_body(turn: ProviderTurn) -> dict[str, Any]:
    """The ``generateContent`` body the API would send for ``turn``; a call's arguments given as
    text go out verbatim where ``args`` belongs."""
    parts = [text_part(turn.text)] if turn.text else []
    for call in turn.tool_calls:
        args = RawJson(call.arguments) if isinstance(call.arguments, str) else call.arguments
        parts.append(function_call_part(call.name, args, id=call.id))
    usage = usage_metadata(turn.usage.input_tokens, turn.usage.output_tokens)
    return generate_response([candidate(parts)], usage=usage)


class GoogleWire:
    """The contract's view of the loopback server: each scripted entry answers the next request,
    plain or streamed as the request's path asks; then a persistent fault, then ``respond``."""

    profile = GOOGLE

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self._queue: deque[ProviderTurn | WireFault] = deque()
        self._persistent: WireFault | None = None
        self._answer: Callable[[str], ProviderTurn] | None = None
        self._lock = threading.Lock()
        server.set_responder(self._respond)

    def _respond(self, request: RecordedRequest) -> Reply:
        with self._lock:
            entry = self._queue.popleft() if self._queue else self._persistent
        streamed = request.path.endswith(":streamGenerateContent")
        if entry is None and self._answer is not None:
            entry = self._answer(request.raw_body.decode())
        if entry is None:
            raise LookupError("nothing scripted for this request")
        if isinstance(entry, ProviderTurn):
            return _reply(google_body(entry), streamed)
        return _fault(entry, streamed=streamed)

    def script(self, *turns: ProviderTurn) -> None:
        with self._lock:
            self._queue.extend(turns)

    def script_fault(self, fault: WireFault) -> None:
        with self._lock:
            if fault in _PERSISTENT:
                self._persistent = fault
            else:
                self._queue.append(fault)

    def respond(self, answer: Callable[[str], ProviderTurn]) -> None:
        self._answer = answer

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        last = body["contents"][-1]
        answers = [part["functionResponse"] for part in last["parts"] if "functionResponse" in part]
        return [(answer.get("id", ""), "error" in answer["response"]) for answer in answers]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)


def _reply(body: Mapping[str, Any], streamed: bool, **stream_options: Any) -> Reply:
    if not streamed:
        return JsonReply(body, headers=_REQUEST_ID)
    stream = google_stream(body, text_chunk=5, **stream_options)
    return dataclasses.replace(stream, headers=_REQUEST_ID)


def _fault(fault: WireFault, *, streamed: bool) -> Reply:
    answer = google_body(ProviderTurn(text=FAULT_TEXT))
    if fault == "rate-limited":  # the adapter reads Retry-After, and waits on its fake clock
        return google_error(429, "RESOURCE_EXHAUSTED", headers={"retry-after": "2", **_REQUEST_ID})
    if fault == "rate-limited-no-retry-after":
        return google_error(429, "RESOURCE_EXHAUSTED", headers=_REQUEST_ID)
    if fault == "server-error":
        return google_error(500, "INTERNAL", headers=_REQUEST_ID)
    if fault == "overloaded":
        return google_error(GOOGLE.overloaded_status, "UNAVAILABLE", headers=_REQUEST_ID)
    if fault in SHAPE_FAULTS:  # the kit cuts, stalls or replaces the answer itself
        shaped = _reply(answer, streamed)
        assert isinstance(shaped, (JsonReply, SseReply))
        return fault_reply(fault, shaped, headers=_REQUEST_ID)
    if fault == "no-choices":
        return _reply(generate_response([]), streamed)
    if fault == "empty-answer":
        return _reply(generate_response([candidate([])]), streamed)
    raise ValueError(f"unknown fault {fault!r}")


@pytest.fixture
def contract_server() -> Iterator[LoopbackServer]:
    with google_server() as loopback:
        yield loopback


def _pool() -> Any:
    """A 20-connection pool of the HTTP package the SDK uses (``httpx2`` from google-genai 3,
    ``httpx`` before: the SDK picks its package from the objects in its client arguments)."""
    package = "httpx2" if importlib.util.find_spec("httpx2") is not None else "httpx"
    limits = importlib.import_module(package).Limits
    return limits(max_connections=20, max_keepalive_connections=20)


def adapters(
    server: LoopbackServer, adapter: type[GoogleAdapter] = GoogleAdapter
) -> Callable[[str], GoogleAdapter]:
    """The contract's ``make_adapter``: fresh adapters of class ``adapter`` on ``server``."""
    options = types.HttpOptions(
        base_url=server.base_url,
        client_args={"verify": False},
        async_client_args={
            "verify": False,
            "ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT),
            "limits": _pool(),
        },
    )

    def make(kind: str) -> GoogleAdapter:
        client = genai.Client(api_key="test", http_options=options)
        given: Any = client if kind == "sync" else client.aio
        return adapter("gemini-test", client=given, close_clients=True, clock=FakeClock())

    return make


class TestGoogleAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, contract_server: LoopbackServer) -> GoogleWire:
        return GoogleWire(contract_server)

    @pytest.fixture
    def make_adapter(self, contract_server: LoopbackServer) -> Callable[[str], GoogleAdapter]:
        return adapters(contract_server)


class LeakyGoogleAdapter(LeavesStreamsOpen, GoogleAdapter):
    """The Gemini adapter, but a stream left early keeps its HTTP response open."""


@pytest.mark.parametrize("early_exit", EARLY_EXITS, ids=["sync", "async"])
def test_the_contract_fails_an_adapter_leaving_its_stream_open(
    contract_server: LoopbackServer, early_exit: Callable[..., None]
) -> None:
    check_it_fails(
        early_exit,
        TestGoogleAdapterContract(),
        GoogleWire(contract_server),
        adapters(contract_server, LeakyGoogleAdapter),
    )
