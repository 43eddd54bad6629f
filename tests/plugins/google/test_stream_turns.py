"""Streamed Gemini turns that must equal their plain form, over the real SDK and HTTP: text
parts kept apart at a ``thoughtSignature``, calls beside a block reason, and the finish reason
of a turn with a single call."""

from __future__ import annotations

import asyncio
import base64
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
    function_call_part,
    generate_path,
    generate_response,
    google_function_calls,
    google_stream,
    google_stream_chunks,
    google_text,
    stream_path,
    text_part,
)
from turns import request_for, streamed_turn

from affordance import PromptEvaluationError, TurnFinished
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import comparable
from affordance_google import GoogleAdapter

PATH = generate_path("gemini-test")
STREAM = stream_path("gemini-test")


def both_turns(
    server: LoopbackServer, adapter: GoogleAdapter, prompt: Any, body: Any, text_chunk: int
) -> tuple[ProviderTurn, ProviderTurn]:
    """The plain and the streamed turn of the same answer ``body``."""
    server.script(PATH, JsonReply(body))
    server.script(STREAM, google_stream(body, text_chunk=text_chunk))
    request = request_for(adapter, prompt)
    return adapter.send(request), streamed_turn(adapter, request)


def signature(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


# -- text parts and their signatures ------------------------------------------------------------

SIGNED_THEN_PLAIN = generate_response(
    [
        candidate(
            [
                text_part("First, ", thought_signature=b"sig-1"),
                text_part("then more."),
                function_call_part("get_weather", {"city": "Oslo"}, id="fc_1"),
            ]
        )
    ]
)
SIGNED_THOUGHTS = generate_response(
    [
        candidate(
            [
                text_part("Plan A. ", thought=True, thought_signature=b"sig-a"),
                text_part("Plan B.", thought=True),
                text_part("Answer."),
            ]
        )
    ]
)


@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_a_signed_text_part_is_not_merged_with_the_text_after_it(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    text_chunk: int,
) -> None:
    plain, streamed = both_turns(server, make_adapter(), prompt, SIGNED_THEN_PLAIN, text_chunk)

    assert streamed == plain
    assert streamed.provider_items[:2] == (
        {"text": "First, ", "thoughtSignature": signature(b"sig-1")},
        {"text": "then more."},
    )
    assert streamed.text == "First, then more."


@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_a_signed_thought_is_not_merged_with_the_thought_after_it(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    text_chunk: int,
) -> None:
    plain, streamed = both_turns(server, make_adapter(), prompt, SIGNED_THOUGHTS, text_chunk)

    assert streamed == plain
    assert streamed.provider_items == (
        {"text": "Plan A. ", "thought": True, "thoughtSignature": signature(b"sig-a")},
        {"text": "Plan B.", "thought": True},
        {"text": "Answer."},
    )


def test_a_streamed_run_echoes_each_signed_part_as_it_came(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    final = google_text("Sunny in Oslo.")
    server.script(PATH, JsonReply(SIGNED_THEN_PLAIN), JsonReply(final))
    server.script(STREAM, google_stream(SIGNED_THEN_PLAIN, text_chunk=2), google_stream(final))
    adapter = make_adapter()

    plain = adapter.evaluate(prompt)
    with adapter.stream(prompt) as events:
        seen = list(events)

    assert comparable(seen[-1].response) == comparable(plain)
    plain_second, streamed_second = server.requests[1].body, server.requests[3].body
    assert streamed_second == plain_second
    model = streamed_second["contents"][1]
    assert model["role"] == "model"
    assert [part.get("text") for part in model["parts"]] == ["First, ", "then more.", None]


# -- calls beside a block reason ----------------------------------------------------------------

CALL_AND_BLOCK = generate_response(
    [candidate([function_call_part("get_weather", {"city": "Oslo"}, id="fc_1")])],
    prompt_feedback={"blockReason": "SAFETY"},
)


@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_a_candidate_with_calls_wins_over_a_block_reason_streamed_as_plain(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    text_chunk: int,
) -> None:
    plain, streamed = both_turns(server, make_adapter(), prompt, CALL_AND_BLOCK, text_chunk)

    assert streamed == plain
    assert (streamed.finish_reason, streamed.refusal) == ("tool_calls", None)
    assert [(c.id, c.name, c.arguments) for c in streamed.tool_calls] == [
        ("fc_1", "get_weather", {"city": "Oslo"})
    ]


@pytest.mark.parametrize("aio", [False, True])
def test_calls_beside_a_block_reason_run_in_a_streamed_run(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    calls: Any,
    aio: bool,
) -> None:
    server.script(STREAM, google_stream(CALL_AND_BLOCK), google_stream(google_text("Sunny.")))
    adapter = make_adapter(aio=aio)

    seen = consume(adapter, prompt, aio)

    assert calls.seen == [("get_weather", "Oslo", "c")]
    assert [e.finish_reason for e in seen if isinstance(e, TurnFinished)] == ["tool_calls", "stop"]
    assert (seen[-1].response.text, seen[-1].response.finish_reason) == ("Sunny.", "stop")


def test_calls_and_a_block_reason_without_a_finish_reason_are_an_error_not_a_refusal(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any
) -> None:
    chunks = google_stream_chunks(CALL_AND_BLOCK)
    for chunk in chunks:
        chunk["candidates"][0].pop("finishReason", None)
    server.script(STREAM, SseReply([SseEvent(json.dumps(chunk)) for chunk in chunks]))
    server.script(PATH, JsonReply(chunks[0]))  # the plain form of the same answer
    adapter = make_adapter()

    with (
        pytest.raises(PromptEvaluationError, match="without a finish reason") as raised,
        adapter.stream(prompt) as events,
    ):
        list(events)
    with pytest.raises(PromptEvaluationError, match="no finishReason"):
        adapter.evaluate(prompt)

    assert (raised.value.provider, raised.value.phase) == ("google", "response")


# -- the finish reason of a turn with one call --------------------------------------------------

ONE_CALL = google_function_calls([("get_weather", {"city": "Oslo"}, "fc_1")])


@pytest.mark.parametrize("text_chunk", [3, 1000])
def test_a_streamed_turn_with_one_call_ends_tool_calls_as_the_plain_one(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: Any,
    text_chunk: int,
) -> None:
    plain, streamed = both_turns(server, make_adapter(), prompt, ONE_CALL, text_chunk)

    assert streamed == plain
    assert streamed.finish_reason == "tool_calls"
    assert len(streamed.tool_calls) == 1


@pytest.mark.parametrize("aio", [False, True])
def test_a_streamed_run_reports_its_one_call_turn_finished_with_tool_calls(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: Any, aio: bool
) -> None:
    server.script(STREAM, google_stream(ONE_CALL), google_stream(google_text("Sunny.")))
    adapter = make_adapter(aio=aio)

    seen = consume(adapter, prompt, aio)

    assert [(e.turn, e.finish_reason) for e in seen if isinstance(e, TurnFinished)] == [
        (1, "tool_calls"),
        (2, "stop"),
    ]


def consume(adapter: GoogleAdapter, prompt: Any, aio: bool) -> list[Any]:
    """Every event of ``prompt`` streamed to its end, sync or async."""

    async def aconsume() -> list[Any]:
        try:
            async with adapter.astream(prompt) as events:
                return [event async for event in events]
        finally:
            await adapter.connection.clients.async_client().aclose()

    if aio:
        return asyncio.run(aconsume())
    with adapter.stream(prompt) as events:
        return list(events)
