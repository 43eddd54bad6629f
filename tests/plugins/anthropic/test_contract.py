"""The adapter contract (``affordance.testing.contract``) on the Messages API, over the real SDK
and the loopback server: plain and streamed, sync and async."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anthropic
import pytest
from loopback import (
    MESSAGES_PATH,
    JsonReply,
    LoopbackServer,
    RecordedRequest,
    anthropic_overloaded,
    malformed_json,
    message_stream,
    message_text,
    message_tool_uses,
    message_usage,
)

from affordance.runtime.turn import ProviderTurn
from affordance.testing.contract import AdapterContract
from affordance_anthropic import AnthropicAdapter


class AnthropicWire:
    """The contract's view of the loopback server, speaking the Messages API."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server

    def script(self, *turns: ProviderTurn) -> None:
        for turn in turns:
            self.server.script(MESSAGES_PATH, self._either(self._body(turn)))

    def script_fault(self, fault: str) -> None:
        if fault == "transient":
            self.server.script(MESSAGES_PATH, anthropic_overloaded(retry_after_ms=1))
        elif fault == "malformed":
            self.server.script(MESSAGES_PATH, malformed_json())
        else:
            body = self._body(ProviderTurn(text="This answer is cut off in the middle."))
            self.server.script(MESSAGES_PATH, message_stream(body, cut_after=3, cut_mid_event=True))

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        last = body["messages"][-1]
        assert last["role"] == "user"
        return [
            (block["tool_use_id"], bool(block.get("is_error", False)))
            for block in last["content"]
            if block["type"] == "tool_result"
        ]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)

    def _body(self, turn: ProviderTurn) -> JsonReply:
        usage = message_usage(turn.usage.input_tokens, turn.usage.output_tokens)
        if turn.tool_calls:
            calls = [(c.id, c.name, json.loads(str(c.arguments))) for c in turn.tool_calls]
            return message_tool_uses(calls, text=turn.text, usage=usage)
        return message_text(turn.text or "", usage=usage)

    def _either(self, body: JsonReply) -> Callable[[RecordedRequest], Any]:
        def reply(request: RecordedRequest) -> Any:
            return message_stream(body, text_chunk=5) if request.body.get("stream") else body

        return reply


class TestAnthropicAdapterContract(AdapterContract):
    @pytest.fixture
    def wire(self, server: LoopbackServer) -> AnthropicWire:
        return AnthropicWire(server)

    @pytest.fixture
    def make_adapter(self, server: LoopbackServer) -> Callable[[str], AnthropicAdapter]:
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
                    **options, http_client=anthropic.DefaultAsyncHttpxClient(verify=False)
                )
            return AnthropicAdapter("claude-test", client=client, close_clients=True)

        return make
