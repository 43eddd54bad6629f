"""The adapter contract (``affordance_testing.contract``) on the Messages API, over the real SDK
and the loopback server: plain and streamed, sync and async, and the fault matrix."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anthropic
import pytest
from fault_profiles import ANTHROPIC
from loopback import (
    MESSAGES_PATH,
    JsonReply,
    LoopbackServer,
    RawJson,
    RecordedRequest,
    Reply,
    anthropic_error,
    anthropic_overloaded,
    message,
    message_stream,
    message_text,
    message_tool_uses,
    message_usage,
)
from stream_leaks import EARLY_EXITS, LeavesStreamsOpen, check_it_fails

from affordance.runtime.model.turn import ProviderTurn
from affordance_anthropic import AnthropicAdapter
from affordance_testing.contract import AdapterContract
from affordance_testing.faults import FAULT_REQUEST_ID, WireFault
from affordance_testing.loopback import SHAPE_FAULTS, fault_reply

FAULT_TEXT = "This answer stops somewhere in the middle."
_PERSISTENT = frozenset({"server-error", "read-timeout"})
_REQUEST_ID = {"request-id": FAULT_REQUEST_ID}


class AnthropicWire:
    """The contract's view of the loopback server, speaking the Messages API."""

    profile = ANTHROPIC

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server

    def script(self, *turns: ProviderTurn) -> None:
        for turn in turns:
            self.server.script(MESSAGES_PATH, self._either(turn))

    def script_fault(self, fault: WireFault) -> None:
        def reply(request: RecordedRequest) -> Reply:
            return self._fault(fault, streamed=bool(request.body.get("stream")))

        if fault in _PERSISTENT:
            self.server.set_responder(reply, path=MESSAGES_PATH)
        else:
            self.server.script(MESSAGES_PATH, reply)

    def respond(self, answer: Callable[[str], ProviderTurn]) -> None:
        def reply(request: RecordedRequest) -> Reply:
            return self._either(answer(request.raw_body.decode()))(request)

        self.server.set_responder(reply, path=MESSAGES_PATH)

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        last = body["messages"][-1]
        if last["role"] != "user" or isinstance(last["content"], str):
            return []
        return [
            (block["tool_use_id"], bool(block.get("is_error", False)))
            for block in last["content"]
            if block["type"] == "tool_result"
        ]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)

    # -- bodies --------------------------------------------------------------------------------

    def _body(self, turn: ProviderTurn, request_id: str = FAULT_REQUEST_ID) -> JsonReply:
        usage = message_usage(turn.usage.input_tokens, turn.usage.output_tokens)
        if turn.tool_calls:
            calls = [(c.id, c.name, _input(c.arguments)) for c in turn.tool_calls]
            return message_tool_uses(calls, text=turn.text, usage=usage, request_id=request_id)
        return message_text(turn.text or "", usage=usage, request_id=request_id)

    def _either(self, turn: ProviderTurn) -> Callable[[RecordedRequest], Reply]:
        body = self._body(turn)
        longest = max((len(str(c.arguments)) for c in turn.tool_calls), default=0)
        chunk = max(16, longest // 4)  # a megabyte of input in four events, not 65,000

        def reply(request: RecordedRequest) -> Reply:
            if request.body.get("stream"):
                return message_stream(body, text_chunk=5, json_chunk=chunk)
            return body

        return reply

    def _fault(self, fault: WireFault, *, streamed: bool) -> Reply:
        answer = self._body(ProviderTurn(text=FAULT_TEXT))
        if fault == "rate-limited":
            return _error(429, "rate_limit_error", retry_after_ms=1)
        if fault == "rate-limited-no-retry-after":
            return _error(429, "rate_limit_error")
        if fault == "server-error":
            return _error(500, "api_error", retry_after_ms=1)
        if fault == "overloaded":
            return anthropic_overloaded(request_id=FAULT_REQUEST_ID, retry_after_ms=1)
        if fault in SHAPE_FAULTS:  # the kit cuts, stalls or replaces the answer itself
            shaped = message_stream(answer) if streamed else answer
            return fault_reply(fault, shaped, headers=_REQUEST_ID)
        if fault == "empty-answer":
            empty = message([], request_id=FAULT_REQUEST_ID)
            return message_stream(empty) if streamed else empty
        raise ValueError(f"{fault!r} does not apply to the Messages API (see its profile)")


def _input(arguments: Any) -> Mapping[str, Any] | RawJson:
    """A call's input as the wire carries it: an object, or the model's text verbatim."""
    return RawJson(arguments) if isinstance(arguments, str) else arguments


def _error(status: int, error_type: str, retry_after_ms: int | None = None) -> JsonReply:
    return anthropic_error(
        status,
        error_type,
        "loopback fault",
        request_id=FAULT_REQUEST_ID,
        retry_after_ms=retry_after_ms,
    )


def adapters(
    server: LoopbackServer, adapter: type[AnthropicAdapter] = AnthropicAdapter
) -> Callable[[str], AnthropicAdapter]:
    """The contract's ``make_adapter``: fresh adapters of class ``adapter`` on ``server``."""
    pool = type(anthropic.DEFAULT_CONNECTION_LIMITS)(
        max_connections=20, max_keepalive_connections=20
    )

    def make(kind: str) -> AnthropicAdapter:
        options: dict[str, Any] = {
            "base_url": server.base_url,
            "api_key": "test",
            "max_retries": 1,
        }
        client: Any
        if kind == "sync":
            client = anthropic.Anthropic(
                **options, http_client=anthropic.DefaultHttpxClient(verify=False)
            )
        else:
            client = anthropic.AsyncAnthropic(
                **options,
                http_client=anthropic.DefaultAsyncHttpxClient(verify=False, limits=pool),
            )
        return adapter("claude-test", client=client, close_clients=True)

    return make


class TestAnthropicAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, server: LoopbackServer) -> AnthropicWire:
        return AnthropicWire(server)

    @pytest.fixture
    def make_adapter(self, server: LoopbackServer) -> Callable[[str], AnthropicAdapter]:
        return adapters(server)


class LeakyAnthropicAdapter(LeavesStreamsOpen, AnthropicAdapter):
    """The Anthropic adapter, but a stream left early keeps its HTTP response open."""


@pytest.mark.parametrize("early_exit", EARLY_EXITS, ids=["sync", "async"])
def test_the_contract_fails_an_adapter_leaving_its_stream_open(
    server: LoopbackServer, early_exit: Callable[..., None]
) -> None:
    check_it_fails(
        early_exit,
        TestAnthropicAdapterContract(),
        AnthropicWire(server),
        adapters(server, LeakyAnthropicAdapter),
    )
