"""Shared pieces of the Anthropic adapter tests: the loopback server, real SDK clients pointed at
it, and a runner that evaluates a prompt in each of the four ways (``evaluate``,
``aevaluate``, ``stream``, ``astream``). The weather prompt is tests/fixtures/weather.py's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, Literal

import anthropic
import pytest
from loopback import MESSAGES_PATH, JsonReply, LoopbackServer, anthropic_server, message_stream

from affordance import PromptResponse, PromptTemplate
from affordance.runtime.record.stream_events import RunFinished
from affordance_anthropic import AnthropicAdapter

Mode = Literal["evaluate", "aevaluate", "stream", "astream"]
MODES: tuple[Mode, ...] = ("evaluate", "aevaluate", "stream", "astream")
STREAMED = frozenset({"stream", "astream"})
MODEL = "claude-test"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with anthropic_server() as loopback:
        yield loopback


def sync_client(
    server: LoopbackServer, max_retries: int = 0, **options: Any
) -> anthropic.Anthropic:
    # Plain HTTP needs no CA bundle; skipping its load saves ~40 ms per client.
    return anthropic.Anthropic(
        base_url=server.base_url,
        api_key="test",
        max_retries=max_retries,
        http_client=anthropic.DefaultHttpxClient(verify=False),
        **options,
    )


def async_client(
    server: LoopbackServer, max_retries: int = 0, **options: Any
) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=server.base_url,
        api_key="test",
        max_retries=max_retries,
        http_client=anthropic.DefaultAsyncHttpxClient(verify=False),
        **options,
    )


class Loopback:
    """The loopback server, with helpers to script whole messages and run prompts against it."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self._opened: list[anthropic.Anthropic] = []

    def sync(self, max_retries: int = 0, **options: Any) -> anthropic.Anthropic:
        """A sync client, closed at teardown."""
        client = sync_client(self.server, max_retries, **options)
        self._opened.append(client)
        return client

    def async_(self, max_retries: int = 0, **options: Any) -> anthropic.AsyncAnthropic:
        """An async client, unopened: ``async with`` it inside the test's event loop."""
        return async_client(self.server, max_retries, **options)

    def close(self) -> None:
        for client in self._opened:
            client.close()

    def replies(self, mode: Mode, *replies: JsonReply, **stream_options: Any) -> list[Any]:
        """Whole-message replies as the route answers them in ``mode``: streamed ones are
        converted into the events the API sends (text in 3-character pieces)."""
        if mode not in STREAMED:
            return list(replies)
        options = {"text_chunk": 3, "json_chunk": 5, **stream_options}
        return [message_stream(reply, **options) for reply in replies]

    def script(self, mode: Mode, *replies: JsonReply) -> None:
        self.server.script(MESSAGES_PATH, *self.replies(mode, *replies))

    def bodies(self) -> list[dict[str, Any]]:
        return [request.body for request in self.server.requests]

    def run(
        self,
        mode: Mode,
        prompt: PromptTemplate[Any],
        *,
        max_retries: int = 0,
        client_options: dict[str, Any] | None = None,
        adapter_options: dict[str, Any] | None = None,
        **evaluate_options: Any,
    ) -> PromptResponse[Any]:
        """Evaluate ``prompt`` one of the four ways with a fresh client; the final response."""
        server = self.server
        client_options = client_options or {}
        adapter_options = adapter_options or {}
        if mode in ("evaluate", "stream"):
            with sync_client(server, max_retries, **client_options) as client:
                adapter = AnthropicAdapter(MODEL, client=client, **adapter_options)
                if mode == "evaluate":
                    return adapter.evaluate(prompt, **evaluate_options)
                with adapter.stream(prompt, **evaluate_options) as events:
                    last = list(events)[-1]
                assert isinstance(last, RunFinished)
                return last.response

        async def asynchronously() -> PromptResponse[Any]:
            async with async_client(server, max_retries, **client_options) as client:
                adapter = AnthropicAdapter(MODEL, client=client, **adapter_options)
                if mode == "aevaluate":
                    return await adapter.aevaluate(prompt, **evaluate_options)
                async with adapter.astream(prompt, **evaluate_options) as events:
                    seen = [event async for event in events]
                assert isinstance(seen[-1], RunFinished)
                return seen[-1].response

        return asyncio.run(asynchronously())


@pytest.fixture
def loopback(server: LoopbackServer) -> Iterator[Loopback]:
    made = Loopback(server)
    yield made
    made.close()
