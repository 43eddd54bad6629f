"""Each provider, traced the way an operator would: the real SDK over real HTTP to its loopback
fake, on all four entry points and a request the server refuses, the spans sent by the real
OTLP/HTTP exporter to the loopback collector and decoded from the protobuf. Each run is one
trace: its ``invoke_agent`` span, a ``chat``/``generate_content`` span per request naming the
server and the model the response named, an ``execute_tool`` span — and the canary is in no
byte sent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    MESSAGES_PATH,
    JsonReply,
    LoopbackServer,
    anthropic_server,
    chat_stream,
    chat_text,
    chat_tool_calls,
    generate_path,
    google_function_calls,
    google_server,
    google_stream,
    google_text,
    message_stream,
    message_text,
    message_tool_uses,
    openai_server,
    server_error,
    stream_path,
)
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from otel_support import CANARY, canary_prompt
from otlp_collector import Collector, attributes_of

from affordance import PromptEvaluationError
from affordance.runtime import Evaluator
from affordance_otel import AffordanceInstrumentor

ARGS = {"text": f"{CANARY}-args"}
DRIVERS = ("evaluate", "aevaluate", "stream", "astream")


@dataclass(frozen=True)
class Provider:
    """One provider's loopback, script and adapter, and the names its spans carry."""

    name: str
    server: Callable[[], LoopbackServer]
    script: Callable[[LoopbackServer, bool], None]  # (server, streamed)
    refuse: Callable[[LoopbackServer, bool], None]  # a 400 for the next request
    adapter: Callable[[LoopbackServer, bool], Evaluator]  # (server, asynchronous)
    request_span: str
    provider_name: str
    response_model: str


def _openai_script(server: LoopbackServer, streamed: bool) -> None:
    first = chat_tool_calls([("c1", "echo", ARGS)])
    second = chat_text(f"Done {CANARY}-text")
    if streamed:
        first, second = chat_stream(first), chat_stream(second)
    server.script(CHAT_COMPLETIONS_PATH, first, second)


def _openai_adapter(server: LoopbackServer, asynchronous: bool) -> Evaluator:
    import openai

    from affordance_openai import OpenAIAdapter

    options: dict[str, Any] = {"base_url": server.base_url, "api_key": "test", "max_retries": 0}
    if asynchronous:
        return OpenAIAdapter("gpt-test", client=openai.AsyncOpenAI(**options), api="chat")
    return OpenAIAdapter("gpt-test", client=openai.OpenAI(**options), api="chat")


def _anthropic_script(server: LoopbackServer, streamed: bool) -> None:
    first = message_tool_uses([("c1", "echo", ARGS)])
    second = message_text(f"Done {CANARY}-text")
    if streamed:
        server.script(MESSAGES_PATH, message_stream(first), message_stream(second))
    else:
        server.script(MESSAGES_PATH, first, second)


def _anthropic_adapter(server: LoopbackServer, asynchronous: bool) -> Evaluator:
    anthropic = pytest.importorskip("anthropic")
    adapters = pytest.importorskip("affordance_anthropic")
    options: dict[str, Any] = {"base_url": server.base_url, "api_key": "test", "max_retries": 0}
    client = anthropic.AsyncAnthropic(**options) if asynchronous else anthropic.Anthropic(**options)
    adapter: Evaluator = adapters.AnthropicAdapter("claude-test", client=client)
    return adapter


def _google_script(server: LoopbackServer, streamed: bool) -> None:
    first = google_function_calls([("echo", ARGS, "c1")])
    second = google_text(f"Done {CANARY}-text")
    if streamed:
        server.script(stream_path("gemini-test"), google_stream(first), google_stream(second))
    else:
        server.script(generate_path("gemini-test"), JsonReply(first), JsonReply(second))


def _google_adapter(server: LoopbackServer, asynchronous: bool) -> Evaluator:
    genai = pytest.importorskip("google.genai")
    adapters = pytest.importorskip("affordance_google")
    options = genai.types.HttpOptions(base_url=server.base_url, api_version="v1beta")
    client = genai.Client(api_key="test", http_options=options)
    adapter: Evaluator = adapters.GoogleAdapter("gemini-test", client=client)
    return adapter


def _refusing(path: Callable[[bool], str]) -> Callable[[LoopbackServer, bool], None]:
    def refuse(server: LoopbackServer, streamed: bool) -> None:
        server.script(path(streamed), server_error(400))

    return refuse


PROVIDERS = {
    "openai": Provider(
        "openai",
        openai_server,
        _openai_script,
        _refusing(lambda streamed: CHAT_COMPLETIONS_PATH),
        _openai_adapter,
        "chat gpt-test",
        "openai",
        "gpt-loopback",
    ),
    "anthropic": Provider(
        "anthropic",
        anthropic_server,
        _anthropic_script,
        _refusing(lambda streamed: MESSAGES_PATH),
        _anthropic_adapter,
        "chat claude-test",
        "anthropic",
        "claude-loopback",
    ),
    "google": Provider(
        "google",
        google_server,
        _google_script,
        _refusing(
            lambda streamed: (
                stream_path("gemini-test") if streamed else generate_path("gemini-test")
            )
        ),
        _google_adapter,
        "generate_content gemini-test",
        "gcp.gen_ai",
        "gemini-loopback",
    ),
}


@pytest.fixture
def collector() -> Iterator[Collector]:
    made = Collector()
    yield made
    made.close()


def run(adapter_of: Callable[[bool], Evaluator], driver: str) -> None:
    """One run of the canary prompt on ``driver``, its clients closed after."""
    if driver in ("evaluate", "stream"):
        adapter = adapter_of(False)
        try:
            if driver == "evaluate":
                adapter.evaluate(canary_prompt())
            else:
                with adapter.stream(canary_prompt()) as stream:
                    list(stream)
        finally:
            adapter.close()
        return

    async def arun() -> None:
        adapter = adapter_of(True)
        try:
            if driver == "aevaluate":
                await adapter.aevaluate(canary_prompt())
            else:
                async with adapter.astream(canary_prompt()) as stream:
                    async for _ in stream:
                        pass
        finally:
            await adapter.aclose()

    asyncio.run(arun())


def traced(collector: Collector, body: Callable[[], None]) -> list[Span]:
    """Run ``body`` instrumented with the OTLP/HTTP exporter pointed at ``collector``; every span
    it sent."""
    provider = TracerProvider()
    exporter = OTLPSpanExporter(endpoint=collector.url("/v1/traces"))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = AffordanceInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        body()
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    return collector.spans()


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_run_arrives_over_otlp_as_one_trace_without_content(
    name: str, driver: str, collector: Collector
):
    provider = PROVIDERS[name]
    streamed = driver in ("stream", "astream")
    with provider.server() as server:
        provider.script(server, streamed)
        spans = traced(
            collector,
            lambda: run(lambda asynchronous: provider.adapter(server, asynchronous), driver),
        )
        server.assert_script_consumed()
        port = int(server.base_url.rsplit(":", 1)[1].split("/", 1)[0])
    by_name: dict[str, list[Span]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    assert sorted(by_name) == sorted(
        ["invoke_agent canary", provider.request_span, "execute_tool echo"]
    )
    (agent,) = by_name["invoke_agent canary"]
    requests = by_name[provider.request_span]
    assert len(requests) == 2
    assert {span.trace_id for span in spans} == {agent.trace_id}
    assert {span.parent_span_id for span in spans if span is not agent} == {agent.span_id}
    for span in requests:
        attributes = attributes_of(span)
        assert attributes["gen_ai.provider.name"] == provider.provider_name
        assert attributes["gen_ai.response.model"] == provider.response_model
        assert attributes["gen_ai.request.stream"] is streamed
        assert attributes["server.address"] == "127.0.0.1"
        assert attributes["server.port"] == port
        assert span.kind == Span.SpanKind.SPAN_KIND_CLIENT
    assert all(CANARY.encode() not in body for _, body in collector.received)


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_request_the_server_refuses_arrives_as_failed_spans(
    name: str, streamed: bool, collector: Collector
):
    provider = PROVIDERS[name]
    driver = "stream" if streamed else "evaluate"

    def failing() -> None:
        with pytest.raises(PromptEvaluationError):
            run(lambda asynchronous: provider.adapter(server, asynchronous), driver)

    with provider.server() as server:
        provider.refuse(server, streamed)
        spans = traced(collector, failing)
    names = sorted(span.name for span in spans)
    assert names == sorted(["invoke_agent canary", provider.request_span])
    for span in spans:
        assert attributes_of(span)["error.type"] == "affordance.errors.PromptEvaluationError"
        assert span.status.code == span.status.STATUS_CODE_ERROR
    assert all(CANARY.encode() not in body for _, body in collector.received)
