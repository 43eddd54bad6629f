"""The adapter contract (``affordance.testing.contract``) on both OpenAI APIs, over the real SDK
and the loopback server: plain and streamed, sync and async."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import openai
import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    RecordedRequest,
    chat_stream,
    chat_text,
    chat_tool_calls,
    chat_usage,
    malformed_json,
    openai_server,
    rate_limited,
    response_function_calls,
    response_text,
    response_usage,
    responses_stream,
)

from affordance.runtime.turn import ProviderTurn
from affordance.testing.contract import AdapterContract
from affordance_openai import OpenAIAdapter

Api = Literal["chat", "responses"]


class OpenAIWire:
    """The contract's view of the loopback server, speaking one OpenAI API."""

    def __init__(self, server: LoopbackServer, api: Api) -> None:
        self.server = server
        self.api = api
        self.path = CHAT_COMPLETIONS_PATH if api == "chat" else RESPONSES_PATH

    def script(self, *turns: ProviderTurn) -> None:
        for turn in turns:
            self.server.script(self.path, self._either(self._body(turn)))

    def script_fault(self, fault: str) -> None:
        if fault == "transient":
            self.server.script(self.path, rate_limited())
        elif fault == "malformed":
            self.server.script(self.path, malformed_json())
        else:
            body = self._body(ProviderTurn(text="This answer is cut off in the middle."))
            cut = self._stream(body, cut_after=3, cut_mid_event=True)
            self.server.script(self.path, cut)

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

    def _body(self, turn: ProviderTurn) -> JsonReply:
        calls = [(c.id, c.name, json.loads(str(c.arguments))) for c in turn.tool_calls]
        usage = turn.usage
        if self.api == "chat":
            wire_usage = chat_usage(usage.input_tokens, usage.output_tokens)
            if calls:
                return chat_tool_calls(calls, content=turn.text, usage=wire_usage)
            return chat_text(turn.text or "", usage=wire_usage)
        wire_usage = response_usage(usage.input_tokens, usage.output_tokens)
        if calls:
            return response_function_calls(calls, text=turn.text, usage=wire_usage)
        return response_text(turn.text or "", usage=wire_usage)

    def _stream(self, body: JsonReply, **options: Any) -> Any:
        if self.api == "chat":
            return chat_stream(body, **options)
        return responses_stream(body, **options)

    def _either(self, body: JsonReply) -> Callable[[RecordedRequest], Any]:
        def reply(request: RecordedRequest) -> Any:
            return self._stream(body) if request.body.get("stream") else body

        return reply


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


class TestOpenAIAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, server: LoopbackServer, api: Api) -> OpenAIWire:
        return OpenAIWire(server, api)

    @pytest.fixture
    def make_adapter(self, server: LoopbackServer, api: Api) -> Callable[[str], OpenAIAdapter]:
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
                    http_client=openai.DefaultAsyncHttpxClient(verify=False),
                )
            return OpenAIAdapter("gpt-test", client=client, api=api, close_clients=True)

        return make
