"""A stream event that cannot be placed in the turn — a second call at an index still open, an
item completed twice, anything after the final event — ends the run with a readable error
naming the provider, before any of the turn's calls runs; never a turn assembled wrongly."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    LoopbackServer,
    SseEvent,
    SseReply,
    chat_stream,
    chat_text,
    chat_tool_calls,
    response_function_calls,
    responses_stream,
)

from affordance import PromptEvaluationError, PromptTemplate
from affordance_openai import OpenAIAdapter

CALLS = [("call_a", "get_weather", {"city": "Paris"}), ("call_b", "get_weather", {"city": "Oslo"})]


def _failure(
    clients: Any, prompt: PromptTemplate[Any], api: str, mode: str
) -> PromptEvaluationError:
    if mode == "stream":
        adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)
        with pytest.raises(PromptEvaluationError) as raised, adapter.stream(prompt) as events:
            list(events)
        return raised.value

    async def consume() -> PromptEvaluationError:
        async with clients.async_() as client:
            adapter = OpenAIAdapter("gpt-test", client=client, api=api)
            with pytest.raises(PromptEvaluationError) as raised:
                async with adapter.astream(prompt) as events:
                    _ = [event async for event in events]
        return raised.value

    return asyncio.run(consume())


def _edited(reply: SseReply, edit: Callable[[list[SseEvent]], list[SseEvent]]) -> SseReply:
    return dataclasses.replace(reply, events=tuple(edit(list(reply.events))))


def _data(event: SseEvent) -> dict[str, Any]:
    assert isinstance(event.data, dict)
    return event.data


# -- Chat Completions --------------------------------------------------------------------------


def _second_call_at_index_zero(events: list[SseEvent]) -> list[SseEvent]:
    """The second call's fragments (its own id, name and arguments) keyed by the first's index."""
    for event in events:
        if isinstance(event.data, dict) and event.data.get("choices"):
            for fragment in event.data["choices"][0].get("delta", {}).get("tool_calls") or ():
                fragment["index"] = 0
    return events


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_chat_two_calls_under_one_index_are_refused_and_neither_runs(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    reply = _edited(chat_stream(chat_tool_calls(CALLS)), _second_call_at_index_zero)
    server.script(CHAT_COMPLETIONS_PATH, reply)

    error = _failure(clients, make_prompt(), "chat", mode)

    assert (error.phase, error.provider) == ("response", "openai")
    assert "a tool call fragment at index 0 names another call" in error.message
    assert calls.seen == []
    assert len(server.requests) == 1


def test_chat_fragments_repeating_their_calls_id_and_name_are_one_call(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any
) -> None:
    """Some servers repeat the id and name in every fragment of a call: still one call."""

    def repeat_id_and_name(events: list[SseEvent]) -> list[SseEvent]:
        for event in events:
            if isinstance(event.data, dict) and event.data.get("choices"):
                for fragment in event.data["choices"][0].get("delta", {}).get("tool_calls") or ():
                    fragment["id"] = CALLS[fragment["index"]][0]
                    fragment.setdefault("function", {})["name"] = "get_weather"
        return events

    server.script(
        CHAT_COMPLETIONS_PATH,
        _edited(chat_stream(chat_tool_calls(CALLS)), repeat_id_and_name),
        chat_stream(chat_text("Both sunny.")),
    )
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api="chat")

    with adapter.stream(make_prompt()) as events:
        response = list(events)[-1].response

    assert [r.call.id for r in response.tool_results] == ["call_a", "call_b"]
    assert sorted(calls.seen) == [("get_weather", "Oslo", "c"), ("get_weather", "Paris", "c")]


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_chat_a_chunk_after_done_is_refused(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    reply = chat_stream(chat_tool_calls(CALLS[:1]))
    late = dataclasses.replace(reply.events[1])
    server.script(CHAT_COMPLETIONS_PATH, _edited(reply, lambda events: [*events, late]))

    error = _failure(clients, make_prompt(), "chat", mode)

    assert (error.phase, error.provider) == ("response", "openai")
    assert "arrived after the event that ended the turn" in error.message
    assert calls.seen == []


# -- Responses ---------------------------------------------------------------------------------


def _function_call_events(events: list[SseEvent], kind: str) -> list[SseEvent]:
    return [
        e
        for e in events
        if _data(e).get("type") == kind and _data(e).get("item", {}).get("type") == "function_call"
    ]


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_responses_a_second_function_call_at_an_open_index_is_refused(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def same_index(events: list[SseEvent]) -> list[SseEvent]:
        first, second = _function_call_events(events, "response.output_item.added")
        second.data["output_index"] = first.data["output_index"]
        return events

    reply = _edited(responses_stream(response_function_calls(CALLS)), same_index)
    server.script(RESPONSES_PATH, reply)

    error = _failure(clients, make_prompt(), "responses", mode)

    assert (error.phase, error.provider) == ("response", "openai")
    assert "a second function_call item was added at output_index" in error.message
    assert calls.seen == []


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_responses_an_item_done_twice_is_refused(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    def done_twice(events: list[SseEvent]) -> list[SseEvent]:
        (done,) = _function_call_events(events, "response.output_item.done")
        events.insert(events.index(done), dataclasses.replace(done))
        return events

    reply = _edited(responses_stream(response_function_calls(CALLS[:1])), done_twice)
    server.script(RESPONSES_PATH, reply)

    error = _failure(clients, make_prompt(), "responses", mode)

    assert "a second item was done at output_index" in error.message
    assert calls.seen == []


@pytest.mark.parametrize("mode", ["stream", "astream"])
def test_responses_an_event_after_completed_is_refused(
    server: LoopbackServer, clients: Any, make_prompt: Any, calls: Any, mode: str
) -> None:
    reply = responses_stream(response_function_calls(CALLS[:1]))
    late = SseEvent(
        {"type": "response.output_text.delta", "output_index": 0, "delta": "more"},
        event="response.output_text.delta",
    )
    server.script(RESPONSES_PATH, _edited(reply, lambda events: [*events, late]))

    error = _failure(clients, make_prompt(), "responses", mode)

    assert (error.phase, error.provider) == ("response", "openai")
    assert "'response.output_text.delta' event arrived after the event that ended" in error.message
    assert calls.seen == []
