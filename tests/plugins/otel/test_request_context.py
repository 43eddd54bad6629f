"""A model request's ``chat`` span is the current span while the request goes out — so the
spans an HTTP client instrumentation makes, and whatever the SDK logs, nest under it — on all
four drivers, through the real ``openai`` SDK to the loopback server; it names the server it
went to (``server.address``/``server.port``); and it is current nowhere else: not after the
request, not in the caller's context after the run."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx2
import openai
import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    LoopbackServer,
    chat_stream,
    chat_text,
    chat_tool_calls,
    openai_server,
)
from opentelemetry import trace
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import server_attributes
from opentelemetry.trace import Span
from otel_support import Telemetry, canary_prompt

from affordance_openai import OpenAIAdapter

DRIVERS = ("evaluate", "aevaluate", "stream", "astream")


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


class SpansAtRequest:
    """The span current as each HTTP request leaves the client (an httpx2 request hook, which
    runs in the context the SDK sends in)."""

    def __init__(self) -> None:
        self.seen: list[Span] = []

    def hook(self, request: httpx2.Request) -> None:
        self.seen.append(trace.get_current_span())

    async def ahook(self, request: httpx2.Request) -> None:
        self.seen.append(trace.get_current_span())


def run(driver: str, server: LoopbackServer, at_request: SpansAtRequest) -> None:
    prompt = canary_prompt()
    if driver in ("evaluate", "stream"):
        http = openai.DefaultHttpxClient(event_hooks={"request": [at_request.hook]})
        with openai.OpenAI(
            base_url=server.base_url, api_key="test", max_retries=0, http_client=http
        ) as client:
            adapter = OpenAIAdapter("gpt-test", client=client, api="chat")
            if driver == "evaluate":
                adapter.evaluate(prompt)
            else:
                with adapter.stream(prompt) as stream:
                    list(stream)
        return

    async def arun() -> None:
        http = openai.DefaultAsyncHttpxClient(event_hooks={"request": [at_request.ahook]})
        async with openai.AsyncOpenAI(
            base_url=server.base_url, api_key="test", max_retries=0, http_client=http
        ) as client:
            adapter = OpenAIAdapter("gpt-test", client=client, api="chat")
            if driver == "aevaluate":
                await adapter.aevaluate(prompt)
            else:
                async with adapter.astream(prompt) as stream:
                    async for _ in stream:
                        pass
        assert not trace.get_current_span().get_span_context().is_valid  # nothing leaked

    asyncio.run(arun())


def script(server: LoopbackServer, *, streamed: bool) -> None:
    first = chat_tool_calls([("c1", "echo", {"text": "hi"})])
    second = chat_text("Done.")
    if streamed:
        first, second = chat_stream(first), chat_stream(second)
    server.script(CHAT_COMPLETIONS_PATH, first, second)


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_chat_span_is_current_while_its_request_goes_out(
    driver: str, server: LoopbackServer, telemetry: Telemetry
):
    script(server, streamed=driver in ("stream", "astream"))
    at_request = SpansAtRequest()
    run(driver, server, at_request)
    server.assert_script_consumed()
    assert not trace.get_current_span().get_span_context().is_valid  # nothing leaked
    chats = sorted(telemetry.named("chat gpt-test"), key=lambda span: span.start_time or 0)
    assert len(chats) == 2
    seen = [span.get_span_context().span_id for span in at_request.seen]
    assert seen == [span.context.span_id for span in chats]
    tool = telemetry.span("execute_tool echo")
    assert tool.parent is not None
    assert tool.parent.span_id == telemetry.span("invoke_agent canary").context.span_id


@pytest.mark.parametrize("driver", ["evaluate", "aevaluate"])
def test_a_chat_span_names_the_server_its_request_went_to(
    driver: str, server: LoopbackServer, telemetry: Telemetry
):
    script(server, streamed=False)
    run(driver, server, SpansAtRequest())
    port = int(server.base_url.rsplit(":", 1)[1].split("/", 1)[0])
    for span in telemetry.named("chat gpt-test"):
        attributes = span.attributes or {}
        assert attributes[server_attributes.SERVER_ADDRESS] == "127.0.0.1"
        assert attributes[server_attributes.SERVER_PORT] == port
    points: list[Any] = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION)
    assert points
    assert {point.attributes[server_attributes.SERVER_ADDRESS] for point in points} == {"127.0.0.1"}
