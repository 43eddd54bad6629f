"""Streaming through ``streamGenerateContent``: the streamed turn equals the plain one for the
same answer (text slices joined back into the same parts, calls whole, hosted items, usage,
finish reasons, refusals), sync and async; errors in and after the stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from loopback import (
    JsonReply,
    LoopbackServer,
    SseEvent,
    SseReply,
    candidate,
    code_execution_result_part,
    executable_code_part,
    function_call_part,
    generate_path,
    generate_response,
    google_blocked,
    google_error_body,
    google_finish,
    google_function_calls,
    google_stream,
    google_stream_chunks,
    google_text,
    google_unavailable,
    grounding_metadata,
    grounding_support,
    stream_path,
    text_part,
    usage_metadata,
    web_chunk,
)
from turns import astreamed_turn, request_for, streamed_turn

from affordance import PromptEvaluationError
from affordance.runtime.model.deltas import TurnAssembler
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import comparable
from affordance_google import GoogleAdapter

PATH = generate_path("gemini-test")
STREAM = stream_path("gemini-test")

TEXT = "Paris is sunny — 21 °C. 6*7 is 42."
BODIES = {
    "text with a thought and a signed part": generate_response(
        [
            candidate(
                [
                    text_part("Let me think about the weather here.", thought=True),
                    text_part(TEXT, thought_signature=b"sig-text"),
                ]
            )
        ],
        usage=usage_metadata(12, 9, thoughts=4),
    ),
    "parallel calls with a signature": google_function_calls(
        [("get_weather", {"city": "Paris"}, "fc_1"), ("get_weather", {"city": "Rome"})],
        text="Let me check both cities.",
        thought_signature=b"sig-call",
    ),
    "hosted code and grounding": generate_response(
        [
            candidate(
                [
                    text_part("Computing it now."),
                    executable_code_part("print(6*7)", id="ex_1"),
                    code_execution_result_part("42\n", id="ex_1"),
                    text_part(TEXT),
                ],
                grounding_metadata=grounding_metadata(
                    ["paris weather"],
                    [web_chunk("https://a.example", "a.example")],
                    [grounding_support(TEXT, 0, 15, [0])],
                ),
            )
        ]
    ),
    "max tokens": google_finish("MAX_TOKENS", text="A long answer that was cut"),
    "filtered": google_finish("SAFETY", text="Something that was"),
    "blocked prompt": google_blocked("SAFETY"),
}


@pytest.mark.parametrize("name", list(BODIES))
@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_the_streamed_turn_equals_the_plain_turn(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    name: str,
    text_chunk: int,
) -> None:
    body = BODIES[name]
    server.script(PATH, JsonReply(body))
    server.script(STREAM, google_stream(body, text_chunk=text_chunk))
    adapter = make_adapter()
    request = request_for(adapter, prompt)

    plain = adapter.send(request)
    streamed = streamed_turn(adapter, request)

    assert streamed == plain
    assert server.requests[1].query == {"alt": "sse"}


@pytest.mark.parametrize("name", list(BODIES))
def test_the_async_streamed_turn_equals_the_async_plain_turn(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, name: str
) -> None:
    body = BODIES[name]
    server.script(PATH, JsonReply(body))
    server.script(STREAM, google_stream(body, text_chunk=4))
    adapter = make_adapter(aio=True)
    request = request_for(adapter, prompt)

    async def both() -> tuple[ProviderTurn, ProviderTurn]:
        try:
            return await adapter.asend(request), await astreamed_turn(adapter, request)
        finally:
            await adapter.connection.clients.async_client().aclose()

    plain, streamed = asyncio.run(both())

    assert streamed == plain


def test_a_streamed_tool_loop_ends_like_the_plain_one(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
) -> None:
    calls = BODIES["parallel calls with a signature"]
    final = google_text("Both sunny.")
    server.script(PATH, JsonReply(calls), JsonReply(final))
    server.script(STREAM, google_stream(calls), google_stream(final, text_chunk=2))
    adapter = make_adapter()

    plain = adapter.evaluate(prompt)
    with adapter.stream(prompt) as events:
        seen = list(events)

    assert comparable(seen[-1].response) == comparable(plain)
    plain_second, streamed_second = server.requests[1].body, server.requests[3].body
    assert streamed_second == plain_second


def consume_all(adapter: GoogleAdapter, prompt: Any, aio: bool) -> None:
    """Run ``prompt`` streamed to its end, sync or async."""

    async def consume() -> None:
        try:
            async with adapter.astream(prompt) as events:
                async for _ in events:
                    pass
        finally:
            await adapter.connection.clients.async_client().aclose()

    if aio:
        asyncio.run(consume())
    else:
        with adapter.stream(prompt) as events:
            list(events)


def chunk_events(body: dict[str, Any], **options: Any) -> list[SseEvent]:
    return [SseEvent(json.dumps(c)) for c in google_stream_chunks(body, **options)]


@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_hosted_tools_read_the_same_candidate_from_a_stream_as_from_a_plain_answer(
    text_chunk: int,
) -> None:
    from affordance.adapters import turn_from_deltas
    from affordance.adapters.sse import SseEvent as WireEvent
    from affordance_google._reply import Reading
    from affordance_google._request import PreparedRequest

    body = BODIES["hosted code and grounding"]
    prepared = PreparedRequest({}, {}, 1, hosted=True)
    translation = Reading(prepared)
    assembler = TurnAssembler()
    for chunk in google_stream_chunks(body, text_chunk=text_chunk):
        for delta in translation(WireEvent(None, json.dumps(chunk))):
            assembler.add(delta)
    for delta in translation.end():
        assembler.add(delta)

    streamed = assembler.turn()

    assert streamed.hosted_items == turn_from_deltas(Reading(prepared).whole(body)).hosted_items
    grounding = body["candidates"][0]["groundingMetadata"]
    assert streamed.hosted_items[0]["groundingMetadata"] == grounding


def test_an_error_event_mid_stream_is_a_prompt_evaluation_error_with_its_status(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    events = chunk_events(google_text("This will not finish."), text_chunk=4)[:2]
    events.append(SseEvent(json.dumps(google_error_body(503, "UNAVAILABLE", "busy"))))
    server.script(STREAM, SseReply(events))

    with pytest.raises(PromptEvaluationError) as info, make_adapter().stream(prompt) as stream:
        list(stream)

    assert (info.value.provider, info.value.status) == ("google", 503)
    assert "UNAVAILABLE: busy" in str(info.value)
    assert len(server.requests) == 1  # a stream that has started is never retried


@pytest.mark.parametrize("aio", [False, True])
def test_a_stream_that_ends_cleanly_without_a_finish_reason_is_an_error(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, aio: bool
) -> None:
    server.script(
        STREAM,
        google_stream(
            google_text("Cut short here."), text_chunk=3, cut_after=2, cut_abortive=False
        ),
    )
    adapter = make_adapter(aio=aio)

    with pytest.raises(PromptEvaluationError, match="without a finish reason") as info:
        consume_all(adapter, prompt, aio)

    assert info.value.provider == "google"


@pytest.mark.parametrize("aio", [False, True])
def test_a_stream_cut_mid_event_is_an_error(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, aio: bool
) -> None:
    body = google_text("A longer answer, cut in the middle of an event.")
    server.script(STREAM, google_stream(body, text_chunk=4, cut_after=3, cut_mid_event=True))
    adapter = make_adapter(aio=aio)

    with pytest.raises(PromptEvaluationError, match="stream broke off") as info:
        consume_all(adapter, prompt, aio)

    assert info.value.provider == "google"


def test_an_error_before_the_stream_starts_is_retried(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, clock: Any
) -> None:
    server.script(STREAM, google_unavailable(), google_stream(google_text("Recovered.")))

    with make_adapter().stream(prompt) as events:
        seen = list(events)

    assert seen[-1].response.text == "Recovered."
    assert len(server.requests) == 2
    assert len(clock.sleeps) == 1


def test_a_call_arriving_in_a_chunk_begins_and_is_ready_at_once(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    from affordance.runtime.model.deltas import ToolCallBegun, ToolCallReady

    body = generate_response(
        [candidate([function_call_part("get_weather", {"city": "Oslo"}, id="fc_9")])]
    )
    server.script(STREAM, google_stream(body))
    adapter = make_adapter()

    deltas = list(adapter.send_stream(request_for(adapter, prompt)))

    begun = [d for d in deltas if isinstance(d, ToolCallBegun)]
    ready = [d for d in deltas if isinstance(d, ToolCallReady)]
    assert begun == [ToolCallBegun(0, "fc_9", "get_weather")]
    assert ready == [ToolCallReady(0, {"city": "Oslo"})]
