"""The walkthrough's provider (``walkthroughs.ndjson_chat``) passes the adapter contract of
affordance-testing, over real HTTP against the loopback server's NDJSON shape: plain and
streamed, sync and async, and the fault matrix."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
import pytest
from walkthroughs.ndjson_chat import CHAT_PATH, NdjsonChatAdapter

from affordance.adapters import ProviderTurn, RequestRetryPolicy
from affordance.testing import FakeClock
from affordance_testing.contract import AdapterContract
from affordance_testing.faults import (
    FAULT_REQUEST_ID,
    PLAIN,
    STREAMED,
    Deviation,
    FaultProfile,
    Raised,
    WireFault,
)
from affordance_testing.loopback import (
    PERSISTENT_FAULTS,
    JsonReply,
    LoopbackServer,
    NdjsonReply,
    RawJson,
    RecordedRequest,
    Reply,
    fault_reply,
)

ANSWERS_ARE_THE_MESSAGE = "a reply's `message` is the answer itself: an empty one is `empty-answer`"

PROFILE = FaultProfile(
    provider="NDJSON chat (walkthrough)",
    retrier="the adapter's `RequestRetryPolicy` (1 retry in the tests; waits on a fake clock)",
    loggers=("httpx", "httpcore"),
    deviations=(
        Deviation("no-choices", ANSWERS_ARE_THE_MESSAGE),
        Deviation("no-choices-stream", ANSWERS_ARE_THE_MESSAGE),
        Deviation("arguments-not-json", "a call's `arguments` is always a JSON object"),
        Deviation(
            "nested-10000-levels",
            "`arguments` is an object inside the body: the body is too deep to read",
            Raised("response", 200, request_id=True),
            modes=PLAIN,
        ),
        Deviation(
            "nested-10000-levels",
            "`arguments` is an object inside the line: the line is too deep to read",
            Raised("response", request_id=True),
            modes=STREAMED,
        ),
    ),
)
"""Where this API's outcome differs from the fault matrix's rows, and why."""

HEADERS = {"x-request-id": FAULT_REQUEST_ID}


def reply_body(turn: ProviderTurn) -> dict[str, Any]:
    """``turn`` as the API's whole reply (arguments embedded as the raw JSON they are)."""
    calls = [
        {"id": c.id, "function": {"name": c.name, "arguments": RawJson(str(c.arguments))}}
        for c in turn.tool_calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
    if calls:
        message["tool_calls"] = calls
    return {
        "model": "walkthrough",
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": turn.usage.input_tokens,
        "eval_count": turn.usage.output_tokens,
    }


def reply_lines(turn: ProviderTurn) -> list[dict[str, Any]]:
    """``turn`` as the API streams it: the text in pieces, the calls in one chunk, then the
    chunk saying ``done`` with the counts."""
    whole = reply_body(turn)
    text = turn.text or ""
    lines = [
        {"message": {"role": "assistant", "content": text[i : i + 8]}, "done": False}
        for i in range(0, len(text), 8)
    ]
    if turn.tool_calls:
        calls = whole["message"]["tool_calls"]
        lines.append({"message": {"role": "assistant", "content": "", "tool_calls": calls}})
    done = {**whole, "message": {"role": "assistant", "content": ""}}
    return [*lines, done]


def answer(turn: ProviderTurn, request: RecordedRequest) -> Reply:
    """``turn`` in the shape ``request`` asked for: NDJSON when it says ``"stream": true``."""
    if request.body.get("stream"):
        return NdjsonReply(reply_lines(turn), headers=HEADERS)
    return JsonReply(reply_body(turn), headers=HEADERS)


class NdjsonChatWire:
    """The contract's view of the loopback server, speaking the NDJSON chat API."""

    profile = PROFILE

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server

    def script(self, *turns: ProviderTurn) -> None:
        for turn in turns:
            self.server.script(CHAT_PATH, lambda request, turn=turn: answer(turn, request))

    def script_fault(self, fault: WireFault) -> None:
        def reply(request: RecordedRequest) -> Reply:
            if fault == "empty-answer":
                return answer(ProviderTurn(), request)
            if fault == "no-choices":
                raise ValueError("no-choices does not apply (see the profile)")
            full = answer(ProviderTurn(text="This answer stops somewhere in the middle."), request)
            assert isinstance(full, (JsonReply, NdjsonReply))
            return fault_reply(fault, full, headers=HEADERS, error={"error": "loopback fault"})

        if fault in PERSISTENT_FAULTS:
            self.server.set_responder(reply, path=CHAT_PATH)
        else:
            self.server.script(CHAT_PATH, reply)

    def respond(self, answer_for: Callable[[str], ProviderTurn]) -> None:
        def reply(request: RecordedRequest) -> Reply:
            return answer(answer_for(request.raw_body.decode()), request)

        self.server.set_responder(reply, path=CHAT_PATH)

    def requests(self) -> Sequence[Mapping[str, Any]]:
        return [request.body for request in self.server.requests]

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        trailing: list[Mapping[str, Any]] = []
        for message in reversed(body["messages"]):
            if message["role"] != "tool":
                break
            trailing.insert(0, message)
        return [(m["tool_call_id"], m["content"].startswith("Error:")) for m in trailing]

    def wait_idle(self) -> bool:
        return self.server.wait_idle(2.0)


class TestNdjsonChatAdapter(AdapterContract):
    @pytest.fixture
    def wire(self, loopback_server: LoopbackServer) -> NdjsonChatWire:
        return NdjsonChatWire(loopback_server)

    @pytest.fixture
    def make_adapter(self, loopback_server: LoopbackServer) -> Callable[[str], NdjsonChatAdapter]:
        def make(kind: str) -> NdjsonChatAdapter:
            limits = httpx.Limits(max_connections=20)
            return NdjsonChatAdapter(
                "walkthrough",
                base_url=loopback_server.base_url,
                client=httpx.Client() if kind == "sync" else None,
                async_client=httpx.AsyncClient(limits=limits) if kind == "async" else None,
                retry=RequestRetryPolicy(max_retries=1),
                clock=FakeClock(),
                close_clients=True,
            )

        return make
