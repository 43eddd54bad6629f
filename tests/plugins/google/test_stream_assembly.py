"""A chunk after the one carrying ``finishReason`` cannot be placed in the turn: the run ends
with a readable error naming the provider, and none of the turn's calls runs (the scrambled
answer it would make is never returned as a success)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from typing import Any

import pytest
from loopback import (
    LoopbackServer,
    SseEvent,
    google_function_calls,
    google_stream,
    google_text,
    stream_path,
)

from affordance import PromptEvaluationError
from affordance_google import GoogleAdapter

STREAM = stream_path("gemini-test")


def _with_late_chunk(body: dict[str, Any]) -> Any:
    reply = google_stream(body, text_chunk=4)
    late = SseEvent(json.dumps({"candidates": [{"content": {"parts": [{"text": " and more"}]}}]}))
    return dataclasses.replace(reply, events=(*reply.events, late))


def _failure(adapter: GoogleAdapter, prompt: Any, mode: str) -> PromptEvaluationError:
    if mode == "stream":
        with pytest.raises(PromptEvaluationError) as raised, adapter.stream(prompt) as events:
            list(events)
        return raised.value

    async def consume() -> PromptEvaluationError:
        try:
            with pytest.raises(PromptEvaluationError) as raised:
                async with adapter.astream(prompt) as events:
                    _ = [event async for event in events]
            return raised.value
        finally:
            await adapter.connection.clients.async_client().aclose()

    return asyncio.run(consume())


@pytest.mark.parametrize("mode", ["stream", "astream"])
@pytest.mark.parametrize(
    "body",
    [
        google_text("Paris is sunny."),
        google_function_calls([("get_weather", {"city": "Paris"}, "fc_1")]),
    ],
    ids=["text", "call"],
)
def test_a_chunk_after_the_finish_reason_is_refused(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    make_prompt: Any,
    calls: Any,
    body: dict[str, Any],
    mode: str,
) -> None:
    server.script(STREAM, _with_late_chunk(body))

    error = _failure(make_adapter(aio=mode == "astream"), make_prompt(), mode)

    assert (error.phase, error.provider) == ("response", "google")
    assert "a chunk arrived after the chunk carrying finishReason" in error.message
    assert calls.seen == []
    assert len(server.requests) == 1
