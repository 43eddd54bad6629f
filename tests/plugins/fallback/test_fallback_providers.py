"""Falling back from one provider to another mid-run, with the real SDK clients against the
loopback servers: turn 1 on the primary calls a tool, which runs; turn 2 fails on the primary
(429 with Retry-After, 503, a reset connection) and the fallback answers. The fallback's request
body, as its server received it, carries the earlier call and its result in its own wire format
and none of the primary's provider items; the primary sent the failed turn once."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import ssl
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import types
from loopback import (
    CHAT_COMPLETIONS_PATH,
    MESSAGES_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    anthropic_error,
    anthropic_overloaded,
    anthropic_server,
    chat_stream,
    chat_text,
    generate_path,
    google_function_calls,
    google_server,
    google_text,
    message,
    message_stream,
    message_text,
    openai_server,
    rate_limited,
    reset,
    response_function_calls,
    response_text,
    responses_stream,
    tool_use_block,
)

from affordance import PromptEvaluationError, PromptResponse, PromptTemplate, RunFinished, Session
from affordance.runtime.loop import FallbackAdapter
from affordance.runtime.record.events import ModelSwitched
from affordance.runtime.record.session import append
from affordance.runtime.record.stream_events import TextDelta
from affordance.testing import FakeClock
from affordance_anthropic import AnthropicAdapter
from affordance_google import GoogleAdapter
from affordance_openai import OpenAIAdapter

OPENAI_MODEL = "gpt-test"
ANTHROPIC_MODEL = "claude-test"
GOOGLE_MODEL = "gemini-test"


@pytest.fixture(autouse=True)
def _no_google_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("GOOGLE_", "GEMINI_")):
            monkeypatch.delenv(name)


class Providers:
    """The three loopback servers, and adapters on real clients of them. Every client may
    retry (``max_retries=2``; Gemini's adapter has its default retry budget, on a fake clock),
    so a primary that sent a failed turn once shows the fallback cut its retries. Sync clients
    are closed at teardown; async ones (``aio=True``) by the test, in its loop (``aclose_all``).
    """

    def __init__(
        self, openai_at: LoopbackServer, anthropic_at: LoopbackServer, google_at: LoopbackServer
    ) -> None:
        self.openai_server = openai_at
        self.anthropic_server = anthropic_at
        self.google_server = google_at
        self._sync: list[Any] = []
        self._async: list[Any] = []

    def openai(self, *, api: str = "responses", aio: bool = False) -> OpenAIAdapter:
        options: dict[str, Any] = {
            "base_url": self.openai_server.base_url,
            "api_key": "test",
            "max_retries": 2,
        }
        client: openai.OpenAI | openai.AsyncOpenAI
        if aio:
            client = openai.AsyncOpenAI(
                http_client=openai.DefaultAsyncHttpxClient(verify=False), **options
            )
            self._async.append(client)
        else:
            client = openai.OpenAI(http_client=openai.DefaultHttpxClient(verify=False), **options)
            self._sync.append(client)
        return OpenAIAdapter(OPENAI_MODEL, client=client, api=api)  # type: ignore[arg-type]

    def anthropic(self, *, aio: bool = False) -> AnthropicAdapter:
        options: dict[str, Any] = {
            "base_url": self.anthropic_server.base_url,
            "api_key": "test",
            "max_retries": 2,
        }
        client: anthropic.Anthropic | anthropic.AsyncAnthropic
        if aio:
            client = anthropic.AsyncAnthropic(
                http_client=anthropic.DefaultAsyncHttpxClient(verify=False), **options
            )
            self._async.append(client)
        else:
            client = anthropic.Anthropic(
                http_client=anthropic.DefaultHttpxClient(verify=False), **options
            )
            self._sync.append(client)
        return AnthropicAdapter(ANTHROPIC_MODEL, client=client)

    def google(self, *, aio: bool = False) -> GoogleAdapter:
        http_options = types.HttpOptions(
            base_url=self.google_server.base_url,
            client_args={"verify": False},
            async_client_args={"verify": False, "ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)},
        )
        client = genai.Client(api_key="test", http_options=http_options)
        self._sync.append(client)
        if aio:
            self._async.append(client.aio)
        return GoogleAdapter(GOOGLE_MODEL, client=client, clock=FakeClock())

    async def aclose_all(self) -> None:
        for client in self._async:
            await (client.aclose() if hasattr(client, "aclose") else client.close())

    def close(self) -> None:
        for client in self._sync:
            client.close()


@pytest.fixture
def providers() -> Iterator[Providers]:
    with (
        openai_server() as at_openai,
        anthropic_server() as at_anthropic,
        google_server() as at_google,
    ):
        made = Providers(at_openai, at_anthropic, at_google)
        try:
            yield made
        finally:
            made.close()


GOOGLE_PATH = generate_path(GOOGLE_MODEL)
WEATHER = "Paris: sunny, 21 c"
ANTHROPIC_SIGNATURE = "sig-anthropic-thinking"
GEMINI_SIGNATURE = b"gemini-thought-signature"


def switches_session() -> Session:
    session = Session()
    session.register_reducer(ModelSwitched, ModelSwitched, append)
    return session


def switched(session: Session) -> list[tuple[str, int | None, str]]:
    return [(e.failed_provider, e.status, e.provider) for e in session.slice(ModelSwitched)]


def anthropic_tool_use() -> JsonReply:
    """A tool call after a signed thinking block (Anthropic's own items, resent only to it)."""
    thinking = {"type": "thinking", "thinking": "Paris first.", "signature": ANTHROPIC_SIGNATURE}
    return message(
        [thinking, tool_use_block("toolu_1", "get_weather", {"city": "Paris"})],
        stop_reason="tool_use",
    )


def check_tool_loop(response: PromptResponse[Any], calls: Any, text: str) -> None:
    assert response.text == text
    assert calls.seen == [("get_weather", "Paris", "c")]
    assert [r.result.success for r in response.tool_results] == [True]


def test_openai_rate_limited_with_retry_after_falls_back_to_anthropic(
    providers: Providers, prompt: PromptTemplate[Any], calls: Any
) -> None:
    at_openai, at_anthropic = providers.openai_server, providers.anthropic_server
    at_openai.script(
        RESPONSES_PATH,
        response_function_calls(
            [("call_a", "get_weather", {"city": "Paris"})], reasoning="Paris first."
        ),
        rate_limited(retry_after_s=1),
    )
    at_anthropic.script(MESSAGES_PATH, message_text("Sunny in Paris."))
    session = switches_session()

    response = FallbackAdapter(providers.openai(), providers.anthropic()).evaluate(
        prompt, session=session
    )

    check_tool_loop(response, calls, "Sunny in Paris.")
    assert len(at_openai.requests) == 2  # turn 1, and turn 2 once: the SDK's retries were cut
    (sent,) = at_anthropic.requests
    body = sent.body
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "call_a", "name": "get_weather", "input": {"city": "Paris"}}
    ]
    (result,) = body["messages"][2]["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", "call_a")
    assert WEATHER in json.dumps(result)
    assert "rs_loopback" not in json.dumps(body)  # the Responses reasoning item stays home
    assert "Paris first." not in json.dumps(body)
    assert switched(session) == [("openai", 429, "anthropic")]
    assert set(response.usage_by_provider) == {"openai", "anthropic"}
    at_openai.assert_script_consumed()
    at_anthropic.assert_script_consumed()


def test_anthropic_unavailable_falls_back_to_gemini(
    providers: Providers, prompt: PromptTemplate[Any], calls: Any
) -> None:
    at_anthropic, at_google = providers.anthropic_server, providers.google_server
    at_anthropic.script(
        MESSAGES_PATH,
        anthropic_tool_use(),
        anthropic_error(503, "api_error", "loopback: unavailable"),
    )
    at_google.script(GOOGLE_PATH, JsonReply(google_text("Sunny in Paris.")))
    session = switches_session()

    response = FallbackAdapter(providers.anthropic(), providers.google()).evaluate(
        prompt, session=session
    )

    check_tool_loop(response, calls, "Sunny in Paris.")
    assert len(at_anthropic.requests) == 2
    (sent,) = at_google.requests
    contents = sent.body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    # another provider's call, rebuilt as Gemini parts: no id, and the thought signature
    # Google documents for a call Gemini did not make (Gemini 3 refuses the turn without one)
    assert contents[1]["parts"] == [
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": "skip_thought_signature_validator",
        }
    ]
    (reply,) = contents[2]["parts"]
    assert reply["functionResponse"]["name"] == "get_weather"
    assert WEATHER in json.dumps(reply)
    assert ANTHROPIC_SIGNATURE not in json.dumps(sent.body)
    assert "Paris first." not in json.dumps(sent.body)
    assert switched(session) == [("anthropic", 503, "google")]
    at_anthropic.assert_script_consumed()
    at_google.assert_script_consumed()


def test_gemini_connection_reset_falls_back_to_openai_async(
    providers: Providers, prompt: PromptTemplate[Any], calls: Any
) -> None:
    at_google, at_openai = providers.google_server, providers.openai_server
    at_google.script(
        GOOGLE_PATH,
        JsonReply(
            google_function_calls(
                [("get_weather", {"city": "Paris"}, "fc_1")], thought_signature=GEMINI_SIGNATURE
            )
        ),
        reset(),
    )
    at_openai.script(RESPONSES_PATH, response_text("Sunny in Paris."))
    session = switches_session()

    async def evaluate() -> PromptResponse[Any]:
        adapter = FallbackAdapter(providers.google(aio=True), providers.openai(aio=True))
        try:
            return await adapter.aevaluate(prompt, session=session)
        finally:
            await providers.aclose_all()

    response = asyncio.run(evaluate())

    check_tool_loop(response, calls, "Sunny in Paris.")
    assert len(at_google.requests) == 2  # the adapter's own retries were cut too
    (sent,) = at_openai.requests
    items = sent.body["input"]
    call = next(item for item in items if item.get("type") == "function_call")
    assert (call["call_id"], call["name"]) == ("fc_1", "get_weather")
    assert json.loads(call["arguments"]) == {"city": "Paris"}
    output = next(item for item in items if item.get("type") == "function_call_output")
    assert output["call_id"] == "fc_1"
    assert WEATHER in json.dumps(output)
    dumped = json.dumps(sent.body)
    assert "thoughtSignature" not in dumped
    assert base64.b64encode(GEMINI_SIGNATURE).decode() not in dumped
    assert switched(session) == [("google", None, "openai")]
    at_google.assert_script_consumed()
    at_openai.assert_script_consumed()


def test_openai_responses_rate_limited_falls_back_to_openai_chat(
    providers: Providers, prompt: PromptTemplate[Any], calls: Any
) -> None:
    at_openai = providers.openai_server
    at_openai.script(
        RESPONSES_PATH,
        response_function_calls(
            [("call_a", "get_weather", {"city": "Paris"})], reasoning="Paris first."
        ),
        rate_limited(),
    )
    at_openai.script(CHAT_COMPLETIONS_PATH, chat_text("Sunny in Paris."))
    session = switches_session()

    response = FallbackAdapter(providers.openai(), providers.openai(api="chat")).evaluate(
        prompt, session=session
    )

    check_tool_loop(response, calls, "Sunny in Paris.")
    paths = [request.path for request in at_openai.requests]
    assert paths.count("/v1/responses") == 2
    (sent,) = [r for r in at_openai.requests if r.path == "/v1/chat/completions"]
    messages = sent.body["messages"]
    (assistant,) = [m for m in messages if m["role"] == "assistant"]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_a"]
    (tool,) = [m for m in messages if m["role"] == "tool"]
    assert tool["tool_call_id"] == "call_a"
    assert WEATHER in json.dumps(tool)
    assert "rs_loopback" not in json.dumps(sent.body)
    assert "Paris first." not in json.dumps(sent.body)
    # both speak for provider "openai": one usage entry, one switch within it
    assert set(response.usage_by_provider) == {"openai"}
    assert switched(session) == [("openai", 429, "openai")]
    at_openai.assert_script_consumed()


def test_a_stream_falls_back_when_the_primary_fails_before_its_first_byte(
    providers: Providers, prompt: PromptTemplate[Any], calls: Any
) -> None:
    at_anthropic, at_openai = providers.anthropic_server, providers.openai_server
    at_anthropic.script(
        MESSAGES_PATH,
        message_stream(anthropic_tool_use(), text_chunk=3, json_chunk=5),
        anthropic_overloaded(),
    )
    at_openai.script(CHAT_COMPLETIONS_PATH, chat_stream(chat_text("Sunny in Paris."), text_chunk=4))
    session = switches_session()

    adapter = FallbackAdapter(providers.anthropic(), providers.openai(api="chat"))
    with adapter.stream(prompt, session=session) as events:
        seen = list(events)

    last = seen[-1]
    assert isinstance(last, RunFinished)
    check_tool_loop(last.response, calls, "Sunny in Paris.")
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == "Sunny in Paris."
    assert len(at_anthropic.requests) == 2
    (sent,) = at_openai.requests
    assert sent.body["stream"] is True
    (assistant,) = [m for m in sent.body["messages"] if m["role"] == "assistant"]
    assert [c["id"] for c in assistant["tool_calls"]] == ["toolu_1"]
    assert ANTHROPIC_SIGNATURE not in json.dumps(sent.body)
    assert switched(session) == [("anthropic", 529, "openai")]
    assert set(last.response.usage_by_provider) == {"anthropic", "openai"}
    at_anthropic.assert_script_consumed()
    at_openai.assert_script_consumed()


def test_a_stream_that_broke_after_its_first_delta_does_not_fall_back(
    providers: Providers, prompt: PromptTemplate[Any]
) -> None:
    at_openai, at_anthropic = providers.openai_server, providers.anthropic_server
    at_openai.script(
        RESPONSES_PATH,
        responses_stream(response_text("Sunny in Paris, all day long."), text_chunk=4, cut_after=7),
    )

    everything = FallbackAdapter(providers.openai(), providers.anthropic(), on=lambda error: True)
    shown: list[str] = []

    def watch() -> None:
        with everything.stream(prompt) as events:
            shown.extend(event.text for event in events if isinstance(event, TextDelta))

    with pytest.raises(PromptEvaluationError) as raised:
        watch()

    assert "stream broke off" in raised.value.message  # on accepts it, yet nothing switched
    assert shown  # some of the answer was shown, so it cannot be taken back
    assert at_anthropic.requests == ()
    assert len(at_openai.requests) == 1
