"""OpenAI streaming beyond the shared contract: what each API streams that the other does not —
reasoning and hosted-tool items, usage options, error events, a stream that just stops."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from fake_search import FakeSearchCodec, SearchOutput, hosted_prompt
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    LoopbackServer,
    SseEvent,
    chat_stream,
    chat_stream_error,
    chat_text,
    message_item,
    output_text_part,
    response,
    response_function_calls,
    response_text,
    responses_stream,
    responses_stream_error,
    url_citation,
    web_search_call_item,
)

from affordance import (
    HostedToolActivity,
    HostedToolResult,
    PromptEvaluationError,
    PromptTemplate,
    RunFinished,
    TextDelta,
)
from affordance.testing import comparable
from affordance_openai import OpenAIAdapter


def streamed(adapter: OpenAIAdapter, prompt: PromptTemplate[Any]) -> list[Any]:
    with adapter.stream(prompt) as events:
        return list(events)


def test_a_streamed_chat_request_asks_for_usage(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(CHAT_COMPLETIONS_PATH, chat_stream(chat_text("Sunny.")))

    events = streamed(OpenAIAdapter("gpt-test", client=clients.sync(), api="chat"), prompt)

    body = server.requests[0].body
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})
    assert events[-1].response.usage.input_tokens == 10


def test_hosted_items_stream_as_activity_and_end_as_the_same_typed_output(
    server: LoopbackServer, clients: Any
) -> None:
    answer = response(
        [
            web_search_call_item("paris weather", ["https://a.example/p"]),
            message_item(
                output_text_part("Sunny.", [url_citation("https://a.example/p", "A", 0, 6)])
            ),
        ]
    )
    server.script(RESPONSES_PATH, answer, responses_stream(answer))
    codecs = {"fake_search": FakeSearchCodec()}
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), codecs=codecs)

    plain = adapter.evaluate(hosted_prompt())
    events = streamed(adapter, hosted_prompt())

    expected = SearchOutput(
        "paris weather", ("https://a.example/p",), ("web_search_call", "message")
    )
    assert plain.hosted_outputs["search"] == expected
    assert [e for e in events if isinstance(e, HostedToolResult)] == [
        HostedToolResult("search", expected)
    ]
    statuses = [e.status for e in events if isinstance(e, HostedToolActivity)]
    assert statuses == ["in_progress", "searching", "completed"]
    assert comparable(events[-1].response) == comparable(plain)


def test_reasoning_items_streamed_are_echoed_like_plain_ones(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    calls = response_function_calls(
        [("c1", "get_weather", {"city": "Paris", "unit": "c"})], reasoning="one call"
    )
    server.script(
        RESPONSES_PATH, responses_stream(calls), responses_stream(response_text("Sunny."))
    )

    streamed(OpenAIAdapter("gpt-test", client=clients.sync()), prompt)

    echoed = server.requests[1].body["input"][1]
    assert echoed["type"] == "reasoning"
    assert echoed["summary"][0]["text"] == "one call"


@pytest.mark.parametrize("nested", [False, True])
def test_a_responses_error_event_is_an_evaluation_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], nested: bool
) -> None:
    reply = responses_stream(response_text("Sunny in Paris today."))
    error = responses_stream_error("server_error", "the model crashed", nested=nested)
    server.script(RESPONSES_PATH, dataclasses.replace(reply, events=[*reply.events[:4], error]))

    with pytest.raises(PromptEvaluationError, match="server_error: the model crashed") as info:
        streamed(OpenAIAdapter("gpt-test", client=clients.sync()), prompt)

    assert (info.value.provider, info.value.request_id) == ("openai", "req_loopback")


def test_a_chat_error_chunk_is_an_evaluation_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    reply = chat_stream(chat_text("Sunny in Paris today."))
    error = chat_stream_error("overloaded", code="server_is_overloaded")
    server.script(
        CHAT_COMPLETIONS_PATH, dataclasses.replace(reply, events=[*reply.events[:2], error])
    )

    with pytest.raises(PromptEvaluationError, match="mid-stream: server_is_overloaded"):
        streamed(OpenAIAdapter("gpt-test", client=clients.sync(), api="chat"), prompt)


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_stream_that_just_stops_is_an_error_not_a_shorter_answer(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    if api == "chat":
        reply = chat_stream(chat_text("Sunny in Paris today."), cut_after=3, cut_abortive=False)
    else:
        reply = responses_stream(
            response_text("Sunny in Paris today."), cut_after=6, cut_abortive=False
        )
    server.script(CHAT_COMPLETIONS_PATH if api == "chat" else RESPONSES_PATH, reply)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]
    seen: list[Any] = []

    with (
        pytest.raises(PromptEvaluationError, match="ended before the turn was complete") as info,
        adapter.stream(prompt) as events,
    ):
        seen.extend(events)

    assert any(isinstance(e, TextDelta) for e in seen)
    assert not any(isinstance(e, RunFinished) for e in seen)
    assert info.value.request_id == "req_loopback"


def test_a_chat_stream_without_any_choice_is_an_error_as_the_completion_is(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    body = chat_text("")
    server.script(CHAT_COMPLETIONS_PATH, chat_stream({**body.body, "choices": []}))

    with pytest.raises(PromptEvaluationError, match="the stream carried no choices") as info:
        streamed(OpenAIAdapter("gpt-test", client=clients.sync(), api="chat"), prompt)

    assert info.value.phase == "response"


def test_an_async_stream_cut_mid_event_is_an_error_naming_the_break(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    reply = responses_stream(
        response_text("Sunny in Paris today."), cut_after=5, cut_mid_event=True
    )
    server.script(RESPONSES_PATH, reply)

    async def run() -> None:
        async with (
            clients.async_() as client,
            OpenAIAdapter("gpt-test", client=client).astream(prompt) as events,
        ):
            async for _ in events:
                pass

    with pytest.raises(PromptEvaluationError, match="stream broke off"):
        asyncio.run(run())


def test_a_responses_event_whose_type_is_no_string_is_skipped_like_an_unknown_one(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    stream = responses_stream(response_text("Sunny."))
    odd = SseEvent({"type": ["response.output_text.delta"], "delta": "x"}, event="odd")
    server.script(RESPONSES_PATH, dataclasses.replace(stream, events=[odd, *stream.events]))

    events = streamed(OpenAIAdapter("gpt-test", client=clients.sync()), prompt)

    assert events[-1].response.text == "Sunny."
