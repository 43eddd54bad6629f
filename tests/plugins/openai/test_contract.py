"""The adapter contract (``affordance_testing.contract``) on both OpenAI APIs, over the real SDK
and the loopback server: plain and streamed, sync and async, and the fault matrix."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import openai
import pytest
from fault_profiles import CHAT, RESPONSES
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    RecordedRequest,
    Reply,
    SseReply,
    chat_completion,
    chat_message,
    chat_stream,
    chat_text,
    chat_tool_calls,
    chat_usage,
    openai_error,
    openai_server,
    response,
    response_function_calls,
    response_text,
    response_usage,
    responses_stream,
)
from stream_leaks import EARLY_EXITS, LeavesStreamsOpen, check_it_fails

from affordance.runtime.model.turn import ProviderTurn
from affordance_openai import OpenAIAdapter
from affordance_testing.contract import AdapterContract
from affordance_testing.faults import FAULT_REQUEST_ID, WireFault
from affordance_testing.loopback import SHAPE_FAULTS, fault_reply

Api = Literal["chat", "responses"]

FAULT_TEXT = "This answer stops somewhere in the middle."
_PERSISTENT = frozenset({"server-error", "read-timeout"})
_QUICK_RETRY = {"retry-after-ms": "1"}


class OpenAIWire:
    """The contract's view of the loopback server, speaking one OpenAI API."""

    def __init__(self, server: LoopbackServer, api: Api) -> None:
        self.server = server
        self.api = api
        self.path = CHAT_COMPLETIONS_PATH if api == "chat" else RESPONSES_PATH
        self.profile = CHAT if api == "chat" else RESPONSES

    def script(self, *turns: ProviderTurn) -> None:
        for turn in turns:
            self.server.script(self.path, self._either(turn))

    def script_fault(self, fault: WireFault) -> None:
        def reply(request: RecordedRequest) -> Reply:
            return self._fault(fault, streamed=bool(request.body.get("stream")))

        if fault in _PERSISTENT:
            self.server.set_responder(reply, path=self.path)
        else:
            self.server.script(self.path, reply)

    def respond(self, answer: Callable[[str], ProviderTurn]) -> None:
        def reply(request: RecordedRequest) -> Reply:
            return self._either(answer(request.raw_body.decode()))(request)

        self.server.set_responder(reply, path=self.path)

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        if self.api == "chat":
            trailing = _trailing(body["messages"], lambda m: m.get("role") == "tool")
            return [(m["tool_call_id"], m["content"].startswith("Error:")) for m in trailing]
        trailing = _trailing(body["input"], lambda i: i.get("type") == "function_call_output")
        return [(i["call_id"], i["output"].startswith("Error:")) for i in trailing]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)

    # -- bodies --------------------------------------------------------------------------------

    def _body(self, turn: ProviderTurn, request_id: str = FAULT_REQUEST_ID) -> JsonReply:
        calls = [(c.id, c.name, c.arguments) for c in turn.tool_calls]  # text goes as it is
        usage = turn.usage
        if self.api == "chat":
            wire_usage = chat_usage(usage.input_tokens, usage.output_tokens)
            if calls:
                return chat_tool_calls(
                    calls, content=turn.text, usage=wire_usage, request_id=request_id
                )
            return chat_text(turn.text or "", usage=wire_usage, request_id=request_id)
        wire_usage = response_usage(usage.input_tokens, usage.output_tokens)
        if calls:
            return response_function_calls(
                calls, text=turn.text, usage=wire_usage, request_id=request_id
            )
        return response_text(turn.text or "", usage=wire_usage, request_id=request_id)

    def _stream(self, body: JsonReply, **options: Any) -> SseReply:
        if self.api == "chat":
            return chat_stream(body, **options)
        return responses_stream(body, **options)

    def _either(self, turn: ProviderTurn) -> Callable[[RecordedRequest], Reply]:
        body = self._body(turn)
        longest = max((len(str(c.arguments)) for c in turn.tool_calls), default=0)
        chunk = max(8, longest // 4)  # a megabyte of arguments in four events, not 130,000

        def reply(request: RecordedRequest) -> Reply:
            return self._stream(body, arguments_chunk=chunk) if request.body.get("stream") else body

        return reply

    def _fault(self, fault: WireFault, *, streamed: bool) -> Reply:
        request_id = {"x-request-id": FAULT_REQUEST_ID}
        answer = self._body(ProviderTurn(text=FAULT_TEXT))
        if fault == "rate-limited":
            return _error(429, "rate_limit_exceeded", _QUICK_RETRY)
        if fault == "rate-limited-no-retry-after":
            return _error(429, "rate_limit_exceeded")
        if fault == "server-error":
            return _error(500, None, _QUICK_RETRY)
        if fault == "overloaded":
            return _error(self.profile.overloaded_status, None, _QUICK_RETRY)
        if fault in SHAPE_FAULTS:  # the kit cuts, stalls or replaces the answer itself
            return fault_reply(
                fault, self._stream(answer) if streamed else answer, headers=request_id
            )
        if fault == "no-choices":
            if self.api != "chat":
                raise ValueError("no-choices does not apply to Responses (see its profile)")
            body = chat_text("", request_id=FAULT_REQUEST_ID)
            empty = dataclasses.replace(body, body={**body.body, "choices": []})
            return self._stream(empty) if streamed else empty
        if fault == "empty-answer":
            if self.api == "chat":
                empty = chat_completion(chat_message(None), request_id=FAULT_REQUEST_ID)
            else:
                empty = response([], request_id=FAULT_REQUEST_ID)
            return self._stream(empty) if streamed else empty
        raise ValueError(f"unknown fault {fault!r}")


def _error(status: int, code: str | None, headers: Mapping[str, str] | None = None) -> JsonReply:
    return openai_error(
        status, "loopback fault", code=code, request_id=FAULT_REQUEST_ID, headers=headers
    )


def _trailing(items: Sequence[Any], keep: Callable[[Any], bool]) -> list[Any]:
    found: list[Any] = []
    for item in reversed(items):
        if not isinstance(item, dict) or not keep(item):
            break
        found.append(item)
    return found[::-1]


@pytest.fixture(params=["chat", "responses"])
def api(request: pytest.FixtureRequest) -> Api:
    chosen: Api = request.param
    return chosen


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


def adapters(
    server: LoopbackServer, api: Api, adapter: type[OpenAIAdapter] = OpenAIAdapter
) -> Callable[[str], OpenAIAdapter]:
    """The contract's ``make_adapter``: fresh adapters of class ``adapter`` on ``server``."""
    pool = type(openai.DEFAULT_CONNECTION_LIMITS)(max_connections=20, max_keepalive_connections=20)

    def make(kind: str) -> OpenAIAdapter:
        options: dict[str, Any] = {"base_url": server.base_url, "api_key": "test"}
        if kind == "sync":
            client: Any = openai.OpenAI(
                **options, max_retries=1, http_client=openai.DefaultHttpxClient(verify=False)
            )
        else:
            client = openai.AsyncOpenAI(
                **options,
                max_retries=1,
                http_client=openai.DefaultAsyncHttpxClient(verify=False, limits=pool),
            )
        return adapter("gpt-test", client=client, api=api, close_clients=True)

    return make


class TestOpenAIAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, server: LoopbackServer, api: Api) -> OpenAIWire:
        return OpenAIWire(server, api)

    @pytest.fixture
    def make_adapter(self, server: LoopbackServer, api: Api) -> Callable[[str], OpenAIAdapter]:
        return adapters(server, api)


class LeakyOpenAIAdapter(LeavesStreamsOpen, OpenAIAdapter):
    """The OpenAI adapter, but a stream left early keeps its HTTP response open."""


@pytest.mark.parametrize("early_exit", EARLY_EXITS, ids=["sync", "async"])
def test_the_contract_fails_an_adapter_leaving_its_stream_open(
    server: LoopbackServer, api: Api, early_exit: Callable[..., None]
) -> None:
    check_it_fails(
        early_exit,
        TestOpenAIAdapterContract(),
        OpenAIWire(server, api),
        adapters(server, api, LeakyOpenAIAdapter),
    )
