"""The OpenAI adapter traced end to end: the real ``openai`` SDK over real HTTP to the loopback
server, Chat Completions and Responses, sync, async and streamed, and a request the server
fails. The spans carry what the provider answered: response id and model, usage with cached
tokens, finish reasons; and still no content by default."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import openai
import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    LoopbackServer,
    chat_stream,
    chat_text,
    chat_tool_calls,
    chat_usage,
    openai_server,
    response_function_calls,
    response_text,
    response_usage,
    responses_stream,
    server_error,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import SpanKind, StatusCode
from otel_support import CANARY, Telemetry, canary_prompt, exported_text

from affordance import PromptEvaluationError
from affordance_openai import OpenAIAdapter

ARGS = {"text": f"{CANARY}-args"}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


def sync_client(server: LoopbackServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.base_url,
        api_key="test",
        max_retries=0,
        http_client=openai.DefaultHttpxClient(verify=False),
    )


def async_client(server: LoopbackServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key="test",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(verify=False),
    )


def check_trace(telemetry: Telemetry, *, response_id: str, finish: tuple[str, str]) -> None:
    agent = telemetry.span("invoke_agent canary")
    chats = sorted(telemetry.named("chat gpt-test"), key=lambda span: span.start_time or 0)
    tool = telemetry.span("execute_tool echo")
    assert len(chats) == 2
    assert all(span.parent and span.parent.span_id == agent.context.span_id for span in chats)
    assert tool.parent is not None
    assert tool.parent.span_id == agent.context.span_id
    assert {span.kind for span in chats} == {SpanKind.CLIENT}
    for span, reason in zip(chats, finish, strict=True):
        attributes = span.attributes or {}
        assert attributes[gen_ai.GEN_AI_OPERATION_NAME] == "chat"
        assert attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "openai"
        assert attributes[gen_ai.GEN_AI_REQUEST_MODEL] == "gpt-test"
        # the model the response names (the loopback answers gpt-loopback to a gpt-test request)
        assert attributes[gen_ai.GEN_AI_RESPONSE_MODEL] == "gpt-loopback"
        assert attributes[gen_ai.GEN_AI_RESPONSE_ID] == response_id
        assert attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] == (reason,)
    first = chats[0].attributes or {}
    assert (first[gen_ai.GEN_AI_USAGE_INPUT_TOKENS], first[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS]) == (
        100,
        20,
    )
    assert first[gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] == 40
    assert first[gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] == 8
    assert (agent.attributes or {})[gen_ai.GEN_AI_REQUEST_MODEL] == "gpt-test"
    assert (agent.attributes or {})[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] == 250
    assert (tool.attributes or {})[gen_ai.GEN_AI_TOOL_CALL_ID] == "c1"
    assert CANARY not in exported_text(telemetry.spans())
    tokens = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE)
    assert {point.attributes[gen_ai.GEN_AI_REQUEST_MODEL] for point in tokens} == {"gpt-test"}
    assert sum(point.sum for point in tokens) == 100 + 20 + 150 + 10


def test_chat_completions_sync(server: LoopbackServer, telemetry: Telemetry):
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls(
            [("c1", "echo", ARGS)], usage=chat_usage(100, 20, cached_tokens=40, reasoning_tokens=8)
        ),
        chat_text(f"Done {CANARY}-text", usage=chat_usage(150, 10)),
    )
    with sync_client(server) as client:
        answer = OpenAIAdapter("gpt-test", client=client, api="chat").evaluate(canary_prompt())
    assert CANARY in (answer.text or "")
    server.assert_script_consumed()
    check_trace(telemetry, response_id="chatcmpl-loopback", finish=("tool_calls", "stop"))


def test_responses_async(server: LoopbackServer, telemetry: Telemetry):
    server.script(
        RESPONSES_PATH,
        response_function_calls(
            [("c1", "echo", ARGS)],
            usage=response_usage(100, 20, cached_tokens=40, reasoning_tokens=8),
        ),
        response_text(f"Done {CANARY}-text", usage=response_usage(150, 10)),
    )

    async def evaluate() -> None:
        async with async_client(server) as client:
            await OpenAIAdapter("gpt-test", client=client).aevaluate(canary_prompt())

    asyncio.run(evaluate())
    server.assert_script_consumed()
    check_trace(telemetry, response_id="resp_loopback", finish=("tool_calls", "stop"))


def test_a_streamed_run_times_its_first_chunk(server: LoopbackServer, telemetry: Telemetry):
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_stream(
            chat_tool_calls(
                [("c1", "echo", ARGS)],
                usage=chat_usage(100, 20, cached_tokens=40, reasoning_tokens=8),
            )
        ),
        chat_stream(chat_text(f"Done {CANARY}-text", usage=chat_usage(150, 10))),
    )
    with sync_client(server) as client:
        adapter = OpenAIAdapter("gpt-test", client=client, api="chat")
        with adapter.stream(canary_prompt()) as stream:
            list(stream)
    server.assert_script_consumed()
    check_trace(telemetry, response_id="chatcmpl-loopback", finish=("tool_calls", "stop"))
    for span in telemetry.named("chat gpt-test"):
        attributes = span.attributes or {}
        assert attributes[gen_ai.GEN_AI_REQUEST_STREAM] is True
        first_chunk = attributes[gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]
        assert isinstance(first_chunk, float)
        assert 0 < first_chunk * 1e9 <= (span.end_time or 0) - (span.start_time or 0)


def test_a_streamed_responses_run_async(server: LoopbackServer, telemetry: Telemetry):
    server.script(
        RESPONSES_PATH,
        responses_stream(
            response_function_calls(
                [("c1", "echo", ARGS)],
                usage=response_usage(100, 20, cached_tokens=40, reasoning_tokens=8),
            )
        ),
        responses_stream(response_text(f"Done {CANARY}-text", usage=response_usage(150, 10))),
    )

    async def consume() -> None:
        async with async_client(server) as client:
            adapter = OpenAIAdapter("gpt-test", client=client)
            async with adapter.astream(canary_prompt()) as stream:
                async for _ in stream:
                    pass

    asyncio.run(consume())
    server.assert_script_consumed()
    check_trace(telemetry, response_id="resp_loopback", finish=("tool_calls", "stop"))


def test_a_request_the_server_fails_is_an_error_span(server: LoopbackServer, telemetry: Telemetry):
    server.script(CHAT_COMPLETIONS_PATH, server_error(500))
    with sync_client(server) as client, pytest.raises(PromptEvaluationError):
        OpenAIAdapter("gpt-test", client=client, api="chat").evaluate(canary_prompt())
    (chat,) = telemetry.named("chat gpt-test")
    agent = telemetry.span("invoke_agent canary")
    for span in (chat, agent):
        assert (span.attributes or {})[error_attributes.ERROR_TYPE] == (
            "affordance.errors.PromptEvaluationError"
        )
        assert span.status.status_code is StatusCode.ERROR
    (duration,) = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION)
    assert duration.attributes[error_attributes.ERROR_TYPE] == (
        "affordance.errors.PromptEvaluationError"
    )
    assert duration.attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "openai"
