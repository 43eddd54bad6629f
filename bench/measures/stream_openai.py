"""Streaming end to end: the scenario streamed through the real ``openai`` SDK to the loopback
server, for Chat Completions and Responses, sync and async.

One run is two streamed requests: the model streams a call to ``get_weather``, then streams its
answer. Two numbers per run: **time to first text delta** (from the start of the run to the
first piece of the answer, read during complete runs) and the **total** (to the end of the
answer). Frameworks: affordance (``OpenAIAdapter.stream`` / ``astream``), the SDK
by hand with its typed streams (``create(stream=True)``, the floor), and the SDK by hand through
the client's public ``post`` (``stream=True``, ``cast_to`` the HTTP response) with one
``json.loads`` per event (its fastest path).

    python bench/measures/stream_openai.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, ClassVar

import httpx2
from _agents import (
    ANSWER,
    INSTRUCTIONS,
    MODEL,
    PARAMETERS,
    QUESTION,
    TOOL_DESCRIPTION,
    Loopback,
    affordance_prompt,
    forecast,
)
from _harness import Sample, Skip, jobs_of, main, time_awaits, time_calls
from _loopback_process import loopback_server

FRAMEWORKS = ("openai-sdk", "openai-sdk-raw", "affordance")
JOBS = jobs_of(FRAMEWORKS)
APIS = ("chat", "responses")
API_LABELS = {"chat": "Chat Completions", "responses": "Responses"}


class _Streamed:
    """One framework's streamed run: ``run_sync()`` / ``await run_async()`` return the text and
    note when its first piece arrived in :attr:`first_at` (``time.perf_counter``)."""

    def __init__(
        self, run_sync: Callable[[_Streamed], str], run_async: Callable[[_Streamed], Any]
    ) -> None:
        self._run_sync = run_sync
        self._run_async = run_async
        self.first_at = 0.0

    def run_sync(self) -> str:
        return self._run_sync(self)

    async def run_async(self) -> str:
        return await self._run_async(self)  # type: ignore[no-any-return]

    def saw(self, text: list[str]) -> None:
        if len(text) == 1:
            self.first_at = time.perf_counter()


def _clients(backend: Loopback) -> tuple[Any, Any]:
    import openai

    options: dict[str, Any] = {"base_url": backend.base_url, "api_key": "bench", "max_retries": 0}
    sync = openai.OpenAI(**options, http_client=openai.DefaultHttpxClient(verify=False))
    asynchronous = openai.AsyncOpenAI(
        **options, http_client=openai.DefaultAsyncHttpxClient(verify=False)
    )
    return sync, asynchronous


def _affordance(backend: Loopback) -> tuple[_Streamed, Callable[[], Any]]:
    from affordance import TextDelta

    try:
        from affordance_openai import OpenAIAdapter
    except ImportError as error:
        raise Skip(f"plugin not installed: {error}") from None

    # a `def` tool for the sync runs, an `async def` one for the async runs: each as the
    # hand-written path calls it, inline (as in e2e_openai)
    prompt, params = affordance_prompt(async_tool=False)
    aprompt, _ = affordance_prompt(async_tool=True)
    sync_client, async_client = _clients(backend)
    adapter = OpenAIAdapter(MODEL, client=sync_client, async_client=async_client, api=backend.api)

    def run_sync(run: _Streamed) -> str:
        text: list[str] = []
        with adapter.stream(prompt, params) as events:
            for event in events:
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    run.saw(text)
        return "".join(text)

    async def run_async(run: _Streamed) -> str:
        text: list[str] = []
        async with adapter.astream(aprompt, params) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    text.append(event.text)
                    run.saw(text)
        return "".join(text)

    async def aclose() -> None:
        sync_client.close()
        await async_client.close()

    return _Streamed(run_sync, run_async), aclose


def _by_hand(backend: Loopback, raw: bool) -> tuple[_Streamed, Callable[[], Any]]:
    sync_client, async_client = _clients(backend)
    hand = _ChatHand() if backend.api == "chat" else _ResponsesHand()

    def run_sync(run: _Streamed) -> str:
        calls = hand.calls(_sync_events(sync_client, hand, hand.first_body(), raw))
        text: list[str] = []
        for piece in hand.texts(_sync_events(sync_client, hand, hand.second_body(calls), raw)):
            text.append(piece)
            run.saw(text)
        return "".join(text)

    async def run_async(run: _Streamed) -> str:
        first = [e async for e in _async_events(async_client, hand, hand.first_body(), raw)]
        calls = hand.calls(iter(first))
        text: list[str] = []
        async for event in _async_events(async_client, hand, hand.second_body(calls), raw):
            for piece in hand.texts(iter([event])):
                text.append(piece)
                run.saw(text)
        return "".join(text)

    async def aclose() -> None:
        sync_client.close()
        await async_client.close()

    return _Streamed(run_sync, run_async), aclose


def _sync_events(client: Any, hand: Any, body: dict[str, Any], raw: bool) -> Iterator[Any]:
    api = hand.api(client)
    if not raw:
        with api.create(**body, stream=True) as stream:
            yield from stream
        return
    response = client.post(
        hand.path, cast_to=httpx2.Response, body={**body, "stream": True}, stream=True
    )
    with contextlib.closing(response):
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[6:])


async def _async_events(
    client: Any, hand: Any, body: dict[str, Any], raw: bool
) -> AsyncIterator[Any]:
    api = hand.api(client)
    if not raw:
        async with await api.create(**body, stream=True) as stream:
            async for event in stream:
                yield event
        return
    response = await client.post(
        hand.path, cast_to=httpx2.Response, body={**body, "stream": True}, stream=True
    )
    try:
        async for line in response.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[6:])
    finally:
        await response.aclose()


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else getattr(value, key, None)


class _ChatHand:
    path = "/chat/completions"
    tools: ClassVar[list[dict[str, Any]]] = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": TOOL_DESCRIPTION,
                "parameters": PARAMETERS,
                "strict": True,
            },
        }
    ]

    def api(self, client: Any) -> Any:
        return client.chat.completions

    def first_body(self) -> dict[str, Any]:
        self.messages = [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": QUESTION},
        ]
        return {
            "model": MODEL,
            "messages": self.messages,
            "tools": self.tools,
            "stream_options": {"include_usage": True},  # as the adapter asks: it reports usage
        }

    def calls(self, events: Iterator[Any]) -> list[tuple[str, str, str]]:
        found: dict[int, list[str]] = {}
        for chunk in events:
            for choice in _get(chunk, "choices") or ():
                for fragment in _get(_get(choice, "delta"), "tool_calls") or ():
                    index = _get(fragment, "index")
                    function = _get(fragment, "function")
                    entry = found.setdefault(index, ["", "", ""])
                    entry[0] = _get(fragment, "id") or entry[0]
                    entry[1] = _get(function, "name") or entry[1]
                    entry[2] += _get(function, "arguments") or ""
        return [(i, n, a) for i, n, a in found.values()]

    def second_body(self, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
        assistant = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                for i, n, a in calls
            ],
        }
        results = [
            {"role": "tool", "tool_call_id": i, "content": forecast(json.loads(a)["city"])}
            for i, _, a in calls
        ]
        return {
            "model": MODEL,
            "messages": [*self.messages, assistant, *results],
            "tools": self.tools,
            "stream_options": {"include_usage": True},
        }

    def texts(self, events: Iterator[Any]) -> Iterator[str]:
        for chunk in events:
            for choice in _get(chunk, "choices") or ():
                content = _get(_get(choice, "delta"), "content")
                if content:
                    yield content


class _ResponsesHand:
    path = "/responses"
    tools: ClassVar[list[dict[str, Any]]] = [
        {
            "type": "function",
            "name": "get_weather",
            "description": TOOL_DESCRIPTION,
            "parameters": PARAMETERS,
            "strict": True,
        }
    ]

    def api(self, client: Any) -> Any:
        return client.responses

    def first_body(self) -> dict[str, Any]:
        self.input = [{"role": "user", "content": QUESTION}]
        return {
            "model": MODEL,
            "instructions": INSTRUCTIONS,
            "input": self.input,
            "tools": self.tools,
        }

    def calls(self, events: Iterator[Any]) -> list[Any]:
        items = []
        for event in events:
            if _get(event, "type") == "response.output_item.done":
                item = _get(event, "item")
                items.append(item if isinstance(item, dict) else item.model_dump(exclude_none=True))
        return items

    def second_body(self, items: list[Any]) -> dict[str, Any]:
        outputs = [
            {
                "type": "function_call_output",
                "call_id": item["call_id"],
                "output": forecast(json.loads(item["arguments"])["city"]),
            }
            for item in items
            if item.get("type") == "function_call"
        ]
        return {
            "model": MODEL,
            "instructions": INSTRUCTIONS,
            "input": [*self.input, *items, *outputs],
            "tools": self.tools,
        }

    def texts(self, events: Iterator[Any]) -> Iterator[str]:
        for event in events:
            if _get(event, "type") == "response.output_text.delta":
                yield _get(event, "delta")


def _first_delta(streamed: _Streamed, *, runs: int, repeat: int) -> float:
    """Seconds from a run's start to its first text piece: the best of ``repeat`` means of
    ``runs`` complete runs (as ``time_calls`` does for whole runs)."""
    means = []
    for _ in range(repeat):
        gc.collect()
        total = 0.0
        for _ in range(runs):
            start = time.perf_counter()
            streamed.run_sync()
            total += streamed.first_at - start
        means.append(total / runs)
    return min(means)


async def _afirst_delta(streamed: _Streamed, *, runs: int, repeat: int) -> float:
    """The async form of :func:`_first_delta`."""
    means = []
    for _ in range(repeat):
        gc.collect()
        total = 0.0
        for _ in range(runs):
            start = time.perf_counter()
            await streamed.run_async()
            total += streamed.first_at - start
        means.append(total / runs)
    return min(means)


def _build(framework: str, backend: Loopback) -> tuple[_Streamed, Callable[[], Any]]:
    if framework == "affordance":
        return _affordance(backend)
    if framework in ("openai-sdk", "openai-sdk-raw"):
        return _by_hand(backend, raw=framework == "openai-sdk-raw")
    raise Skip(f"{framework} is not measured here")


def _measure_api(
    framework: str, backend: Loopback, sample: Sample, target: float, repeat: int
) -> None:
    api = backend.api
    label = f"streamed, two requests + tool, {API_LABELS[api]}"
    streamed, aclose = _build(framework, backend)
    seen = streamed.run_sync()
    if seen != ANSWER:
        raise AssertionError(f"{framework} streamed {seen!r}, expected {ANSWER!r}")
    whole = time_calls(streamed.run_sync, target_s=target, repeat=repeat)
    first = _first_delta(streamed, runs=max(20, int(target / whole)), repeat=repeat)
    asyncio.run(aclose())
    sample.add(f"{api}_sync_first", f"{label}, sync: first text delta", "ms", first * 1e3)
    sample.add(f"{api}_sync_total", f"{label}, sync: total", "ms", whole * 1e3)

    async def timed() -> tuple[float, float]:
        streamed_async, aclose_async = _build(framework, backend)  # bound to this loop
        try:
            whole = await time_awaits(streamed_async.run_async, target_s=target, repeat=repeat)
            first = await _afirst_delta(
                streamed_async, runs=max(20, int(target / whole)), repeat=repeat
            )
        finally:
            await aclose_async()
        return first, whole

    first, whole = asyncio.run(timed())
    sample.add(f"{api}_async_first", f"{label}, async: first text delta", "ms", first * 1e3)
    sample.add(f"{api}_async_total", f"{label}, async: total", "ms", whole * 1e3)


def measure(framework: str, args: argparse.Namespace) -> Sample:
    target, repeat = (0.1, 3) if args.quick else (0.15, 5)
    sample = Sample()
    with loopback_server() as base_url:
        for api in APIS:
            _measure_api(framework, Loopback(base_url, api), sample, target, repeat)
    return sample


if __name__ == "__main__":
    main("stream_openai", measure, JOBS)
