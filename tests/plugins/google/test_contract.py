"""The adapter contract (``affordance.testing.contract``) over the real ``google-genai`` SDK and
the loopback server: plain and streamed, sync (``client``) and async (``client.aio``)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from google import genai
from loopback import (
    JsonReply,
    LoopbackServer,
    RecordedRequest,
    function_call_part,
    generate_response,
    google_rate_limited,
    google_server,
    google_stream,
    malformed_json,
    text_part,
    usage_metadata,
)
from loopback.google_wire import candidate

from affordance.runtime.turn import ProviderTurn
from affordance.testing import FakeClock
from affordance.testing.contract import AdapterContract
from affordance_google import GoogleAdapter


def google_body(turn: ProviderTurn) -> dict[str, Any]:
    """The ``generateContent`` body the API would send for ``turn``."""
    parts = [text_part(turn.text)] if turn.text else []
    for call in turn.tool_calls:
        args = call.arguments if isinstance(call.arguments, Mapping) else _json(call.arguments)
        parts.append(function_call_part(call.name, args, id=call.id))
    usage = usage_metadata(turn.usage.input_tokens, turn.usage.output_tokens)
    return generate_response([candidate(parts)], usage=usage)


def _json(text: str) -> Any:
    import json

    return json.loads(text)


class GoogleWire:
    """The contract's view of the loopback server: each scripted entry answers the next request,
    plain or streamed as the request's path asks."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self._queue: deque[Any] = deque()
        self._lock = threading.Lock()
        server.set_responder(self._respond)

    def _respond(self, request: RecordedRequest) -> Any:
        with self._lock:
            entry = self._queue.popleft()
        streamed = request.path.endswith(":streamGenerateContent")
        if isinstance(entry, ProviderTurn):
            body = google_body(entry)
            return google_stream(body, text_chunk=5) if streamed else JsonReply(body)
        if entry == "transient":
            return google_rate_limited(retry_after_s=0.001)
        if entry == "malformed":
            return malformed_json()
        body = google_body(ProviderTurn(text="This answer is cut off in the middle."))
        return google_stream(body, cut_after=2, cut_mid_event=True)

    def script(self, *turns: ProviderTurn) -> None:
        with self._lock:
            self._queue.extend(turns)

    def script_fault(self, fault: str) -> None:
        with self._lock:
            self._queue.append(fault)

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        last = body["contents"][-1]
        answers = [part["functionResponse"] for part in last["parts"]]
        return [(answer.get("id", ""), "error" in answer["response"]) for answer in answers]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)


@pytest.fixture
def contract_server() -> Iterator[LoopbackServer]:
    with google_server() as loopback:
        yield loopback


class TestGoogleAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, contract_server: LoopbackServer) -> GoogleWire:
        return GoogleWire(contract_server)

    @pytest.fixture
    def make_adapter(
        self, contract_server: LoopbackServer, new_client: Callable[..., genai.Client]
    ) -> Callable[[str], GoogleAdapter]:
        def make(kind: str) -> GoogleAdapter:
            client = new_client(contract_server)
            given: Any = client if kind == "sync" else client.aio
            return GoogleAdapter("gemini-test", client=given, close_clients=True, clock=FakeClock())

        return make
