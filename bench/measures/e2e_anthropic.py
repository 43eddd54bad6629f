"""End to end over HTTP: the scenario through the real ``anthropic`` SDK to the loopback server.

One run is two requests (the model calls ``get_weather``, then answers), plain and streamed.
Measured per run, synchronously and awaited one after another on one event loop:

- ``affordance``: ``AnthropicAdapter.evaluate`` / ``aevaluate`` (plain) and ``stream`` /
  ``astream`` consumed to the end (streamed); the tool is a ``def`` in the sync runs and an
  ``async def`` in the async ones, as the hand-written paths call it inline (what a ``def`` tool
  costs under ``aevaluate``, a worker thread, is measured by ``offline_run``);
- ``anthropic-sdk``, the floor: the same two requests written by hand with the typed SDK,
  ``messages.create`` (plain) and ``messages.stream(...).get_final_message()`` (streamed), the
  assistant's content resent as the SDK returned it;
- ``anthropic-sdk-raw``: the same JSON bodies by hand through the client's public ``post``
  (``cast_to`` the HTTP response, ``stream=True`` for the streamed form) and one ``json.loads``
  per body or event, as the adapter does: the SDK's fastest path.

The server runs in its own process (this module with ``--serve``), so its work does not share
the measuring process's interpreter.

    python bench/measures/e2e_anthropic.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from _harness import Sample, Skip, fixtures_on_path, jobs_of, main, time_awaits, time_calls
from _loopback_process import serving

FRAMEWORKS = ("anthropic-sdk", "anthropic-sdk-raw", "affordance")
JOBS = jobs_of(FRAMEWORKS)
MODEL = "claude-loopback"
MAX_TOKENS = 1024
PATH = "/v1/messages"
INSTRUCTIONS = "You answer weather questions. Use the get_weather tool."
QUESTION = "What is the weather in Paris?"
ANSWER = "It is sunny in Paris."
TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
}


def forecast(city: str) -> str:
    return f"Sunny, 24 C in {city}."


@dataclass(frozen=True, slots=True)
class Runs:
    """One framework's four ways of running the scenario, and how to release its clients."""

    plain_sync: Callable[[], str]
    stream_sync: Callable[[], str]
    plain_async: Callable[[], Awaitable[str]]
    stream_async: Callable[[], Awaitable[str]]
    close: Callable[[], Awaitable[None]]


def clients(base_url: str) -> tuple[Any, Any]:
    import anthropic

    sync = anthropic.Anthropic(
        base_url=base_url,
        api_key="bench",
        max_retries=0,
        http_client=anthropic.DefaultHttpxClient(verify=False),
    )
    async_ = anthropic.AsyncAnthropic(
        base_url=base_url,
        api_key="bench",
        max_retries=0,
        http_client=anthropic.DefaultAsyncHttpxClient(verify=False),
    )
    return sync, async_


def closer(sync: Any, async_: Any) -> Callable[[], Awaitable[None]]:
    async def close() -> None:
        sync.close()
        await async_.close()

    return close


# -- affordance --------------------------------------------------------------------------------


def affordance_runs(base_url: str) -> Runs:
    from dataclasses import dataclass as frozen

    from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
    from affordance_anthropic import AnthropicAdapter

    @frozen(frozen=True)
    class Weather:
        city: str

    def get_weather(params: Weather) -> ToolResult[str]:
        return ToolResult(message=forecast(params.city), value=None)

    async def aget_weather(params: Weather) -> ToolResult[str]:
        return ToolResult(message=forecast(params.city), value=None)

    def weather_prompt(handler: Any) -> PromptTemplate[None]:
        tool = Tool[Weather, str](
            name="get_weather", description=TOOL["description"], handler=handler
        )
        section = MarkdownSection(title="Weather", template=INSTRUCTIONS, tools=[tool])
        return PromptTemplate(ns="bench", key="weather", sections=[section])

    # the tool is written as the run is, as the hand-written path calls it: a `def` for the
    # sync runs, an `async def` awaited on the loop for the async ones (as in e2e_openai)
    prompt, aprompt = weather_prompt(get_weather), weather_prompt(aget_weather)
    question = [_user(QUESTION)]
    sync, async_ = clients(base_url)
    adapter = AnthropicAdapter(MODEL, client=sync, async_client=async_, max_tokens=MAX_TOKENS)

    def plain_sync() -> str:
        return adapter.evaluate(prompt, messages=question).text or ""

    def stream_sync() -> str:
        with adapter.stream(prompt, messages=question) as events:
            *_, last = events
        return last.response.text or ""  # type: ignore[attr-defined]

    async def plain_async() -> str:
        return (await adapter.aevaluate(aprompt, messages=question)).text or ""

    async def stream_async() -> str:
        async with adapter.astream(aprompt, messages=question) as events:
            async for event in events:
                last = event
        return last.response.text or ""  # type: ignore[attr-defined]

    return Runs(plain_sync, stream_sync, plain_async, stream_async, closer(sync, async_))


def _user(text: str) -> Any:
    from affordance.adapters import UserMessage

    return UserMessage(text)


# -- the SDK by hand ---------------------------------------------------------------------------


def first_messages() -> list[dict[str, Any]]:
    return [{"role": "user", "content": QUESTION}]


def second_messages(content: Any, call_id: str, city: str) -> list[dict[str, Any]]:
    result = {"type": "tool_result", "tool_use_id": call_id, "content": forecast(city)}
    return [
        *first_messages(),
        {"role": "assistant", "content": content},
        {"role": "user", "content": [result]},
    ]


def typed_runs(base_url: str) -> Runs:
    sync, async_ = clients(base_url)
    common = {"model": MODEL, "max_tokens": MAX_TOKENS, "system": INSTRUCTIONS, "tools": [TOOL]}

    def follow_up(message: Any) -> list[dict[str, Any]]:
        call = next(block for block in message.content if block.type == "tool_use")
        return second_messages(message.content, call.id, call.input["city"])

    def text_of(message: Any) -> str:
        return "".join(block.text for block in message.content if block.type == "text")

    def plain_sync() -> str:
        first = sync.messages.create(messages=first_messages(), **common)
        return text_of(sync.messages.create(messages=follow_up(first), **common))

    def stream_sync() -> str:
        with sync.messages.stream(messages=first_messages(), **common) as stream:
            first = stream.get_final_message()
        with sync.messages.stream(messages=follow_up(first), **common) as stream:
            return text_of(stream.get_final_message())

    async def plain_async() -> str:
        first = await async_.messages.create(messages=first_messages(), **common)
        return text_of(await async_.messages.create(messages=follow_up(first), **common))

    async def stream_async() -> str:
        async with async_.messages.stream(messages=first_messages(), **common) as stream:
            first = await stream.get_final_message()
        async with async_.messages.stream(messages=follow_up(first), **common) as stream:
            return text_of(await stream.get_final_message())

    return Runs(plain_sync, stream_sync, plain_async, stream_async, closer(sync, async_))


class _RawStream:
    """Content blocks rebuilt from SSE lines, one ``json.loads`` per event."""

    def __init__(self) -> None:
        self.blocks: list[dict[str, Any]] = []
        self.pieces: list[list[str]] = []
        self.event: str | None = None

    def line(self, line: str) -> None:
        if line.startswith("data:"):
            data = json.loads(line[5:])
            kind = data["type"]
            if kind == "content_block_start":
                self.blocks.append(dict(data["content_block"]))
                self.pieces.append([])
            elif kind == "content_block_delta":
                delta = data["delta"]
                piece = delta.get("text") if delta["type"] == "text_delta" else None
                piece = delta.get("partial_json") if piece is None else piece
                if piece is not None:
                    self.pieces[data["index"]].append(piece)
            elif kind == "content_block_stop":
                block, text = self.blocks[data["index"]], "".join(self.pieces[data["index"]])
                if block["type"] == "text":
                    block["text"] = text
                elif block["type"] == "tool_use":
                    block["input"] = json.loads(text) if text else {}

    @property
    def content(self) -> list[dict[str, Any]]:
        return self.blocks


def raw_runs(base_url: str) -> Runs:
    sync, async_ = clients(base_url)

    def body(messages: list[dict[str, Any]], stream: bool = False) -> dict[str, Any]:
        body = {
            "model": MODEL,
            "max_tokens": MAX_TOKENS,
            "messages": messages,
            "system": INSTRUCTIONS,
            "tools": [TOOL],
        }
        return {**body, "stream": True} if stream else body

    def post(messages: list[dict[str, Any]], stream: bool = False) -> Any:
        return sync.post(PATH, cast_to=httpx2.Response, body=body(messages, stream), stream=stream)

    async def apost(messages: list[dict[str, Any]], stream: bool = False) -> Any:
        return await async_.post(
            PATH, cast_to=httpx2.Response, body=body(messages, stream), stream=stream
        )

    def follow_up(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        call = next(block for block in content if block["type"] == "tool_use")
        return second_messages(content, call["id"], call["input"]["city"])

    def text_of(content: list[dict[str, Any]]) -> str:
        return "".join(block["text"] for block in content if block["type"] == "text")

    def plain_sync() -> str:
        first = json.loads(post(first_messages()).content)
        second = post(follow_up(first["content"]))
        return text_of(json.loads(second.content)["content"])

    def streamed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        reader = _RawStream()
        with contextlib.closing(post(messages, stream=True)) as raw:
            for line in raw.iter_lines():
                reader.line(line)
        return reader.content

    def stream_sync() -> str:
        return text_of(streamed(follow_up(streamed(first_messages()))))

    async def plain_async() -> str:
        first = await apost(first_messages())
        content = json.loads(first.content)["content"]
        second = await apost(follow_up(content))
        return text_of(json.loads(second.content)["content"])

    async def astreamed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        reader = _RawStream()
        raw = await apost(messages, stream=True)
        try:
            async for line in raw.aiter_lines():
                reader.line(line)
        finally:
            await raw.aclose()
        return reader.content

    async def stream_async() -> str:
        return text_of(await astreamed(follow_up(await astreamed(first_messages()))))

    return Runs(plain_sync, stream_sync, plain_async, stream_async, closer(sync, async_))


BUILDERS = {
    "affordance": affordance_runs,
    "anthropic-sdk": typed_runs,
    "anthropic-sdk-raw": raw_runs,
}


# -- the measure -------------------------------------------------------------------------------


def check(answer: object, framework: str) -> None:
    if not isinstance(answer, str) or ANSWER not in answer:
        raise AssertionError(f"{framework} answered {answer!r}, expected {ANSWER!r}")


def measure(framework: str, args: argparse.Namespace) -> Sample:
    try:
        import anthropic  # noqa: F401
    except ImportError as missing:
        raise Skip(f"anthropic is not installed ({missing})") from None
    if framework == "affordance":
        try:
            import affordance_anthropic  # noqa: F401
        except ImportError:
            raise Skip("plugin not installed (plugins/anthropic)") from None
    target, repeat = (0.1, 3) if args.quick else (0.15, 5)
    sample = Sample()
    label = "two requests + tool"
    with loopback_server() as base_url:

        async def measure_async() -> Runs:
            runs = BUILDERS[framework](base_url)  # its async client binds to this loop
            try:
                for key, run in (
                    ("plain_async", runs.plain_async),
                    ("stream_async", runs.stream_async),
                ):
                    check(await run(), framework)
                    seconds = await time_awaits(run, target_s=target, repeat=repeat)
                    kind = "plain" if key.startswith("plain") else "streamed"
                    sample.add(key, f"{label}, {kind}, async", "ms", seconds * 1e3)
            finally:
                await runs.close()
            return runs

        runs = BUILDERS[framework](base_url)
        try:
            for key, call in (("plain_sync", runs.plain_sync), ("stream_sync", runs.stream_sync)):
                check(call(), framework)
                seconds = time_calls(call, target_s=target, repeat=repeat)
                kind = "plain" if key.startswith("plain") else "streamed"
                sample.add(key, f"{label}, {kind}, sync", "ms", seconds * 1e3)
        finally:
            asyncio.run(runs.close())
        asyncio.run(measure_async())
    return sample


# -- the server process ------------------------------------------------------------------------


@contextlib.contextmanager
def loopback_server() -> Iterator[str]:
    """The Anthropic loopback server in a child process; yields its base URL."""
    with serving([sys.executable, str(Path(__file__).resolve()), "--serve"]) as base_url:
        yield base_url


def _has_tool_result(body: Any) -> bool:
    messages = body.get("messages") if isinstance(body, dict) else None
    last = messages[-1] if messages else None
    content = last.get("content") if isinstance(last, dict) else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )


def serve() -> None:
    fixtures_on_path()
    from loopback import (
        MESSAGES_PATH,
        RecordedRequest,
        Reply,
        anthropic_server,
        message_stream,
        message_text,
        message_tool_uses,
    )

    call = message_tool_uses([("toolu_1", "get_weather", {"city": "Paris"})])
    answer = message_text(ANSWER)
    streams = {id(call): message_stream(call), id(answer): message_stream(answer)}

    def respond(request: RecordedRequest) -> Reply:
        reply = answer if _has_tool_result(request.body) else call
        return streams[id(reply)] if request.body.get("stream") else reply

    with anthropic_server() as server:
        server.set_responder(respond, path=MESSAGES_PATH)
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the measuring process closes our stdin
        failures = server.failures
    if failures:
        sys.stderr.write(f"loopback: {len(failures)} failure(s), first: {failures[0]}\n")


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        main("e2e_anthropic", measure, JOBS)
