"""Scaling with load: how each framework's cost grows as its load grows, in two dimensions.

**Concurrent runs** (``--dimension concurrent --size N``, N = 100, 1,000 and 10,000): N runs of
the offline scenario (``_agents``: each framework's own fake model, an ``async def`` tool)
started at once with ``asyncio.gather``, as ``concurrency.py`` does: the wall time from the first
start to the last answer, the peak resident memory the burst added (the process's peak RSS minus
its RSS just before the burst, after one warm-up run), and both per run (wall ÷ N in µs, memory
÷ N in KiB). Peak RSS never falls within a process, so each (framework, N) is a fresh process;
the growth exponent between two sizes, log(t₂/t₁) / log(N₂/N₁), is therefore not computed here
but by the report, from these per-size rows. A burst has 30 s (``--budget``): one still running
then is reported skipped ("did not finish within 30 s"), never as a number, and left unfinished
when the process ends (:func:`burst_within` says why it is neither cancelled nor timed by its
own event loop).

**Streamed deltas** (``--dimension deltas``; N = 10, 100, 1,000 and 10,000 in one process): one
streamed Chat Completions answer of N text deltas, over real HTTP from the loopback server
(``_loopback_process`` started with ``deltas=N``: a plain question, no tool, answered with N
four-character pieces), read to the end through the real ``openai`` SDK. Per N the total time of
one answer (best of repetitions, as ``time_calls``), sync where the framework has a sync stream
and async; then the marginal cost of a delta between the two largest sizes,
(t(10,000) - t(1,000)) ÷ 9,000, and the exponent log(t(10,000) / t(1,000)) / log(10)
(``_harness.growth``). Frameworks:
affordance (``OpenAIAdapter.stream`` / ``astream``, Chat Completions), pydantic-ai
(``Agent.run_stream`` with ``stream_text(delta=True, debounce_by=None)``: every delta, none
merged), openai-agents (``Runner.run_streamed`` and its ``stream_events()``), and the SDK by hand
(``chat.completions.create(stream=True)`` iterated to the end: the floor).

    python bench/measures/scaling_load.py [--framework F --dimension D --size N --budget S]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import queue
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from _agents import ANSWER, MODEL, Loopback, _closer, build
from _agents import _clients as _agents_clients
from _harness import (
    Sample,
    Skip,
    current_rss_mb,
    growth,
    main,
    peak_rss_mb,
    time_awaits,
    time_calls,
)
from _loopback_process import delta_text, loopback_server

CONCURRENT = ("affordance", "pydantic-ai", "openai-agents")
CONCURRENT_SIZES = (100, 1_000, 10_000)
BUDGET_S = 30.0  # the longest a burst may take before it is reported skipped
DELTAS = ("openai-sdk", "affordance", "pydantic-ai", "openai-agents")
DELTA_SIZES = (10, 100, 1_000, 10_000)
JOBS = [
    *(
        (framework, ("--dimension", "concurrent", "--size", str(size)))
        for size in CONCURRENT_SIZES
        for framework in CONCURRENT
    ),
    *((framework, ("--dimension", "deltas")) for framework in DELTAS),
]
INSTRUCTIONS = "You answer questions at length."
QUESTION = "Tell me about Paris."


# -- concurrent runs ---------------------------------------------------------------------------


def burst_within(framework: str, runs: int, budget_s: float) -> Sample:
    """:func:`burst` on an event loop in a daemon thread, timed from this one: a burst not
    finished ``budget_s`` after it began is reported skipped and left running until the process
    ends. The loop cannot time itself out: its timers are read between iterations, and one
    iteration takes a step of every run (over a minute for 10,000 openai-agents runs). Nor are
    the runs cancelled: for 10,000 runs that takes about 10 s (pydantic-ai) and 100 s
    (openai-agents) more."""
    sample = Sample()
    news: queue.SimpleQueue[float | Exception | None] = queue.SimpleQueue()

    def run() -> None:
        outcome: Exception | None = None
        with asyncio.Runner() as runner:
            try:
                runner.run(burst(framework, runs, sample, news.put))
            except Exception as error:  # raised again by the timing thread
                outcome = error
        news.put(outcome)

    threading.Thread(target=run, daemon=True).start()
    outcome = news.get()
    if isinstance(outcome, float):  # the burst began then
        try:
            outcome = news.get(timeout=max(0.0, outcome + budget_s - time.perf_counter()))
        except queue.Empty:
            gc.freeze()  # the unfinished runs out of the collector's sight: the process ends sooner
            raise Skip(f"{runs:,} runs did not finish within {budget_s:.0f} s") from None
    if isinstance(outcome, Exception):
        raise outcome
    return sample


async def burst(
    framework: str, runs: int, sample: Sample, began: Callable[[float], object]
) -> None:
    """``runs`` offline runs at once: wall time and peak RSS added, whole and per run.
    ``began`` is told the ``time.perf_counter()`` they start at."""
    agent = build(framework, None, async_tool=True)
    if agent.run_async is None:
        raise Skip("no async run")
    if await agent.run_async() != ANSWER:  # warm-up: imports, caches
        raise AssertionError(f"{framework} gave a wrong answer")
    gc.collect()
    before = current_rss_mb()
    started = time.perf_counter()
    began(started)
    answers = await asyncio.gather(
        *(agent.run_async() for _ in range(runs)), return_exceptions=True
    )
    wall = time.perf_counter() - started
    added = max(0.0, peak_rss_mb() - before)
    failed = [answer for answer in answers if answer != ANSWER]
    if failed:
        first = failed[0]
        shown = f"{type(first).__name__}: {first}" if isinstance(first, BaseException) else first
        raise RuntimeError(f"{len(failed)} of {runs} runs failed (first: {shown!r})")
    label = f"{runs:,} concurrent runs, offline"
    sample.add(f"concurrent_{runs}_wall", f"{label}: wall time", "ms", wall * 1e3)
    sample.add(f"concurrent_{runs}_memory", f"{label}: peak RSS added", "MiB", added)
    sample.add(f"concurrent_{runs}_per_run", f"{label}: wall time per run", "µs", wall / runs * 1e6)
    sample.add(
        f"concurrent_{runs}_memory_per_run",
        f"{label}: peak RSS added per run",
        "KiB",
        added * 1024 / runs,
    )
    sample.info["rss before burst MiB"] = round(before, 1)


# -- streamed deltas ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Streamer:
    """One framework's streamed answer: ``run_sync()`` / ``await run_async()`` read it to the
    end and return its text (``run_sync`` is ``None`` where the framework has no sync stream);
    ``aclose`` closes the HTTP clients."""

    run_sync: Callable[[], str] | None
    run_async: Callable[[], Awaitable[str]]
    aclose: Callable[[], Awaitable[None]]


def _clients(base_url: str) -> tuple[Any, Any, Callable[[], Awaitable[None]]]:
    """Sync and async SDK clients for the loopback server, as every measure configures them
    (``_agents``), and what closes both."""
    sync_client, async_client = _agents_clients(Loopback(base_url, "chat"))
    return sync_client, async_client, _closer(sync_client, async_client)


def _openai_sdk(base_url: str) -> Streamer:
    sync_client, async_client, aclose = _clients(base_url)
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": QUESTION},
        ],
        "stream_options": {"include_usage": True},  # as the adapter asks: it reports usage
    }

    def run_sync() -> str:
        pieces: list[str] = []
        with sync_client.chat.completions.create(**body, stream=True) as stream:
            for chunk in stream:
                pieces.extend(c.delta.content for c in chunk.choices if c.delta.content)
        return "".join(pieces)

    async def run_async() -> str:
        pieces: list[str] = []
        async with await async_client.chat.completions.create(**body, stream=True) as stream:
            async for chunk in stream:
                pieces.extend(c.delta.content for c in chunk.choices if c.delta.content)
        return "".join(pieces)

    return Streamer(run_sync, run_async, aclose)


def _affordance(base_url: str) -> Streamer:
    from affordance import MarkdownSection, PromptTemplate, TextDelta

    try:
        from affordance_openai import OpenAIAdapter
    except ImportError as error:
        raise Skip(f"plugin not installed: {error}") from None
    sync_client, async_client, aclose = _clients(base_url)
    adapter = OpenAIAdapter(MODEL, client=sync_client, async_client=async_client, api="chat")
    prompt: PromptTemplate[Any] = PromptTemplate(
        name="question",
        sections=[
            MarkdownSection(title="Instructions", template=INSTRUCTIONS),
            MarkdownSection(title="Question", template=QUESTION),
        ],
    )

    def run_sync() -> str:
        with adapter.stream(prompt) as events:
            return "".join([event.text for event in events if isinstance(event, TextDelta)])

    async def run_async() -> str:
        async with adapter.astream(prompt) as events:
            return "".join([event.text async for event in events if isinstance(event, TextDelta)])

    return Streamer(run_sync, run_async, aclose)


def _pydantic_ai(base_url: str) -> Streamer:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    _, async_client, aclose = _clients(base_url)
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=async_client))
    agent = Agent(model, instructions=INSTRUCTIONS)

    async def run_async() -> str:
        async with agent.run_stream(QUESTION) as result:
            pieces = result.stream_text(delta=True, debounce_by=None)
            return "".join([piece async for piece in pieces])

    return Streamer(None, run_async, aclose)


def _openai_agents(base_url: str) -> Streamer:
    from agents import Agent, OpenAIChatCompletionsModel, Runner
    from agents.tracing import set_tracing_disabled
    from openai.types.responses import ResponseTextDeltaEvent

    set_tracing_disabled(True)  # its default exporter would upload traces
    _, async_client, aclose = _clients(base_url)
    model = OpenAIChatCompletionsModel(model=MODEL, openai_client=async_client)
    agent = Agent(name="writer", instructions=INSTRUCTIONS, model=model)

    async def run_async() -> str:
        events = Runner.run_streamed(agent, QUESTION).stream_events()
        return "".join(
            [
                event.data.delta
                async for event in events
                if event.type == "raw_response_event"
                and isinstance(event.data, ResponseTextDeltaEvent)
            ]
        )

    return Streamer(None, run_async, aclose)


_STREAMERS: dict[str, Callable[[str], Streamer]] = {
    "openai-sdk": _openai_sdk,
    "affordance": _affordance,
    "pydantic-ai": _pydantic_ai,
    "openai-agents": _openai_agents,
}


def _streamer(framework: str, base_url: str) -> Streamer:
    try:
        return _STREAMERS[framework](base_url)
    except ImportError as error:
        raise Skip(f"not installed: {error}") from None


def _check(text: str, framework: str, deltas: int) -> None:
    if text != delta_text(deltas):
        raise AssertionError(f"{framework} streamed {len(text)} characters of {deltas} deltas")


def _time_answers(framework: str, deltas: int, target: float, repeat: int) -> dict[str, float]:
    """Seconds per streamed answer of ``deltas`` deltas, per form ("sync", "async")."""
    seconds: dict[str, float] = {}
    with loopback_server(deltas=deltas) as base_url:
        streamer = _streamer(framework, base_url)
        if streamer.run_sync is not None:
            _check(streamer.run_sync(), framework, deltas)
            seconds["sync"] = time_calls(streamer.run_sync, target_s=target, repeat=repeat)
        asyncio.run(streamer.aclose())

        async def timed() -> float:
            streamer = _streamer(framework, base_url)  # its async client binds to this loop
            try:
                _check(await streamer.run_async(), framework, deltas)
                return await time_awaits(streamer.run_async, target_s=target, repeat=repeat)
            finally:
                await streamer.aclose()

        seconds["async"] = asyncio.run(timed())
    return seconds


def stream_sizes(framework: str, quick: bool) -> Sample:
    """Every size of :data:`DELTA_SIZES`, then the marginal cost and the exponent per form."""
    sample = Sample()
    target = 0.1 if quick else 0.15
    totals: dict[str, dict[int, float]] = {}
    for deltas in DELTA_SIZES:
        repeat = (2 if quick else 3) if deltas >= 10_000 else (3 if quick else 5)
        for form, seconds in _time_answers(framework, deltas, target, repeat).items():
            totals.setdefault(form, {})[deltas] = seconds
            sample.add(
                f"deltas_{deltas}_{form}",
                f"{deltas:,} streamed deltas, {form}: total",
                "ms",
                seconds * 1e3,
            )
    smaller, larger = DELTA_SIZES[-2:]
    for form, by_size in totals.items():
        per_delta, exponent = growth(smaller, by_size[smaller], larger, by_size[larger])
        span = f"{smaller:,} → {larger:,}"
        sample.add(
            f"deltas_{form}_marginal",
            f"streamed deltas, {form}: cost per delta, {span}",
            "µs",
            per_delta * 1e6,
        )
        sample.add(
            f"deltas_{form}_exponent",
            f"streamed deltas, {form}: growth exponent, {span}",
            "",
            exponent,
        )
    return sample


# -- the command line --------------------------------------------------------------------------


def measure(framework: str, args: argparse.Namespace) -> Sample:
    if args.dimension == "concurrent":
        if framework not in CONCURRENT:
            raise Skip(f"{framework} has no offline model")
        return burst_within(framework, args.size, args.budget)
    return stream_sizes(framework, args.quick)


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dimension", choices=("concurrent", "deltas"), default="concurrent")
    parser.add_argument("--size", type=int, default=100, help="concurrent runs started at once")
    parser.add_argument(
        "--budget",
        type=float,
        default=BUDGET_S,
        help="seconds a burst may take before it is reported skipped",
    )


if __name__ == "__main__":
    main("scaling_load", measure, JOBS, _arguments)
