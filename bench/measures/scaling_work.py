"""Scaling with work: how a run's cost grows as its work grows, in four dimensions.

One process per (framework, dimension); each runs every size of its dimension, smallest first.
affordance, pydantic-ai and openai-agents run the scenario of ``_agents`` grown along one
dimension (``_scaling_agents`` builds it):

- **tools** (10, 100, 1,000 and 10,000 tools declared): one run over real HTTP to the loopback
  server (a fresh server process per size; Chat Completions, the real ``openai`` SDK, an
  ``async def`` ``get_weather``) with ``get_weather`` and N - 1 distinct dummy tools declared,
  each taking a string and an integer: all N on both requests of the run.
- **history** (10, 200 and 2,000 earlier turns): one run over HTTP, as above, whose transcript
  already holds N complete turns (a question, a call of ``get_weather``, its result, an answer)
  before the new question: affordance ``messages=``, pydantic-ai ``message_history=``,
  openai-agents a list of input items. The server answers the question, not the history, so
  a run is still two requests.
- **result** (1 KB, 100 KB, 1 MB and 10 MB; KB = 1,024 bytes): an offline run (each framework's
  own fake model) whose ``async def`` tool returns a string of that size, built before the run.
  Besides the time, the peak memory the run adds beyond the result itself: ``tracemalloc``
  started just before one more run (the string already built, so it is not counted), its peak
  (``get_traced_memory()[1]``) read after, in MiB; the timings run without ``tracemalloc``.
- **parallel** (1, 10, 100 and 1,000 calls): an offline run whose model's first answer makes N
  calls of the ``async def`` tool (distinct call ids), then answers. Every framework runs the
  calls of a turn concurrently on the event loop (affordance's executor, awaited by
  ``aevaluate``'s driver with ``asyncio.gather``).

Runs are awaited one after another (``aevaluate``, ``Agent.run``, ``Runner.run``). Per size: one
checked warm-up run, then the best of 3 timings of ``time_awaits`` (garbage collector on); a run
that took over a second is timed as the best of two single runs instead. A size that took over
15 s (building included) ends its dimension: the larger sizes are not run, and ``info`` says so.

Per dimension, from the two largest sizes N₁ < N₂ with run times t₁, t₂: the **marginal cost**
per unit (t₂ - t₁) ÷ (N₂ - N₁) (per tool, turn, MB or call), and the **growth exponent**
log(t₂ ÷ t₁) ÷ log(N₂ ÷ N₁): 1 is linear, 2 quadratic, near 0 a cost that the constant part
of the run hides (noise can then make it slightly negative). Neither is reported when N₂
was not run.

affordance only, the request bodies alone (``adapter.connection.prepare(request)``: the body a
model builds, nothing sent; its SDK client points at an unused address), timed with
``time_calls`` (best of 5, garbage collector on) after one untimed build, each ``prepare`` of
the same request:

- with **tools**, per tool declared, on OpenAI's Responses model with only the question as
  messages: a fresh adapter with 1,000 tools; then a busy one, which first prepared 12
  requests of 1,000 fresh tools each (dropped after), with 1,025 tools and with 10,000 tools;
  and each busy figure over the fresh one (a bounded cache of 1,024 declarations would miss
  on every tool of 1,025 taken in order).
- with **history**, per earlier turn (call arguments as an object, no tools), with 200 and with
  2,000 turns, on OpenAI Responses, OpenAI Chat, Anthropic and Google; and 2,000 over 200. A
  provider plugin not installed is left out, and ``info`` says so. With them, in the same
  job, a session's ``append`` per event onto a slice already holding 10, 10,000 and 100,000
  events (1,000 events applied, best of 7), and 100,000 over 10.

    python bench/measures/scaling_work.py [--framework F --dimension D] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from _agents import ANSWER, CITY, INSTRUCTIONS, MODEL, QUESTION
from _harness import Sample, growth, main, time_awaits, time_calls
from _loopback_process import loopback_server
from _scaling_agents import Run, affordance_history, lookup_tools, loopback_run, offline_run

FRAMEWORKS = ("affordance", "pydantic-ai", "openai-agents")
DIMENSION_NAMES = ("tools", "history", "result", "parallel")
JOBS = [
    (framework, ("--dimension", dimension))
    for dimension in DIMENSION_NAMES
    for framework in FRAMEWORKS
]
BUDGET_S = 15.0  # a size that took longer ends its dimension
SLOW_RUN_S = 1.0  # a warm-up run this long: the best of two single runs, no calibration
MIB = 2**20
UNUSED_URL = "http://127.0.0.1:1"  # clients of the prepare() figures: nothing is sent
BUSY_REQUESTS, BUSY_TOOLS = 12, 1_000
HISTORY_TURNS = (200, 2_000)


@dataclass(frozen=True, slots=True)
class Size:
    """One size of a dimension: ``value`` in the dimension's unit, ``key`` for metric keys,
    ``name`` for labels."""

    value: float
    key: str
    name: str


@dataclass(frozen=True, slots=True)
class Dimension:
    """A dimension: its sizes, the unit its marginal cost is per, and what a size runs."""

    key: str
    unit: str
    sizes: tuple[Size, ...]
    run: str  # the label of a size's time
    time_key: str  # the key of a size's time: ``<key>_<size>_<time_key>``


def _counted(values: tuple[int, ...], noun: str) -> tuple[Size, ...]:
    return tuple(Size(value, str(value), f"{value:,} {noun}") for value in values)


DIMENSIONS = {
    "tools": Dimension(
        "tools", "tool", _counted((10, 100, 1_000, 10_000), "tools"), "one run over HTTP", "run"
    ),
    "history": Dimension(
        "history",
        "turn",
        _counted((10, 200, 2_000), "earlier turns"),
        "one run over HTTP",
        "run",
    ),
    "result": Dimension(
        "result",
        "MB",
        (
            Size(1 / 1024, "1kb", "1 KB result"),
            Size(100 / 1024, "100kb", "100 KB result"),
            Size(1, "1mb", "1 MB result"),
            Size(10, "10mb", "10 MB result"),
        ),
        "one run, offline",
        "time",
    ),
    "parallel": Dimension(
        "parallel",
        "call",
        _counted((1, 10, 100, 1_000), "parallel calls"),
        "one run, offline",
        "run",
    ),
}


def measure(framework: str, args: argparse.Namespace) -> Sample:
    dimension = DIMENSIONS[args.dimension]
    target_s = 0.05 if args.quick else 0.2
    sample = Sample()
    times: dict[str, float] = {}
    for size in dimension.sizes:
        started = time.perf_counter()
        measured = _SIZE_MEASURES[dimension.key](framework, size, target_s)
        spent = time.perf_counter() - started
        times[size.key] = measured.seconds
        sample.add(
            f"{dimension.key}_{size.key}_{dimension.time_key}",
            f"{size.name}: {dimension.run}",
            "ms",
            measured.seconds * 1e3,
        )
        if measured.peak_mib is not None:
            label = f"{size.name}: peak memory added beyond the result"
            sample.add(f"{dimension.key}_{size.key}_memory", label, "MiB", measured.peak_mib)
        if spent > BUDGET_S and size is not dimension.sizes[-1]:
            sample.info[f"{dimension.key}: larger sizes not run"] = (
                f"{size.name} took {spent:.0f} s (over the {BUDGET_S:.0f} s budget)"
            )
            break
    _add_growth(sample, dimension, times)
    if framework == "affordance" and dimension.key in _BODY_MEASURES:
        _BODY_MEASURES[dimension.key](sample, target_s)
    return sample


def _add_growth(sample: Sample, dimension: Dimension, times: dict[str, float]) -> None:
    """The marginal cost and the growth exponent between the two largest sizes."""
    smaller, larger = dimension.sizes[-2:]
    if larger.key not in times:
        return
    per_unit, exponent = growth(smaller.value, times[smaller.key], larger.value, times[larger.key])
    span = f"{smaller.name} → {larger.name}"
    sample.add(
        f"{dimension.key}_per_unit",
        f"per {dimension.unit}, {span}: marginal cost",
        "µs",
        per_unit * 1e6,
    )
    sample.add(f"{dimension.key}_exponent", f"growth exponent, {span}", "", exponent)


# -- one size ----------------------------------------------------------------------------------


def _check(answer: object, framework: str) -> None:
    if not isinstance(answer, str) or ANSWER not in answer:
        raise AssertionError(f"{framework} answered {answer!r}, expected {ANSWER!r}")


async def _time_run(run: Run, framework: str, target_s: float) -> float:
    """Seconds per run: one checked warm-up run, then the best of 3 ``time_awaits`` timings,
    or of two single runs when the warm-up took over :data:`SLOW_RUN_S`."""
    started = time.perf_counter()
    _check(await run(), framework)
    if time.perf_counter() - started < SLOW_RUN_S:
        return await time_awaits(run, target_s=target_s, repeat=3)
    return min([await _once(run) for _ in range(2)])


async def _once(run: Run) -> float:
    gc.collect()
    started = time.perf_counter()
    await run()
    return time.perf_counter() - started


@dataclass(frozen=True, slots=True)
class Measured:
    """What one size measured: seconds per run, and the peak memory a run adds (result)."""

    seconds: float
    peak_mib: float | None = None


def _tools_declared(framework: str, size: Size, target_s: float) -> Measured:
    return Measured(_over_http(framework, int(size.value), 0, target_s))


def _earlier_turns(framework: str, size: Size, target_s: float) -> Measured:
    return Measured(_over_http(framework, 1, int(size.value), target_s))


def _over_http(framework: str, tools: int, turns: int, target_s: float) -> float:
    """A run over HTTP with ``tools`` tools and ``turns`` earlier turns, on a server of its own
    (the server keeps every request it answers)."""

    async def timed(base_url: str) -> float:
        subject = loopback_run(framework, base_url, tools=tools, turns=turns)
        try:
            return await _time_run(subject.run, framework, target_s)
        finally:
            await subject.aclose()

    with loopback_server() as base_url:
        return asyncio.run(timed(base_url))


def _parallel_calls(framework: str, size: Size, target_s: float) -> Measured:
    async def timed() -> float:
        return await _time_run(offline_run(framework, calls=int(size.value)), framework, target_s)

    return Measured(asyncio.run(timed()))


def _result_size(framework: str, size: Size, target_s: float) -> Measured:
    """The run's time, and the peak memory one more run adds, traced apart."""
    piece = "Sunny, 24 C in Paris. "
    length = int(size.value * MIB)
    output = (piece * (length // len(piece) + 1))[:length]

    async def timed() -> Measured:
        run = offline_run(framework, calls=1, output=output)
        seconds = await _time_run(run, framework, target_s)
        gc.collect()
        tracemalloc.start()
        try:
            _check(await run(), framework)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return Measured(seconds, peak / MIB)

    return asyncio.run(timed())


_SIZE_MEASURES: dict[str, Callable[[str, Size, float], Measured]] = {
    "tools": _tools_declared,
    "history": _earlier_turns,
    "result": _result_size,
    "parallel": _parallel_calls,
}


# -- affordance's request bodies ---------------------------------------------------------------


def _request(tools: tuple[Any, ...] = (), messages: tuple[Any, ...] | None = None) -> Any:
    """A model request as the loop builds it, with no rendered prompt (``prepare`` reads none)."""
    from affordance.adapters import ModelRequest, UserMessage

    return ModelRequest(
        prompt_name="weather",
        run_id="bench",
        turn=1,
        rendered=None,  # type: ignore[arg-type]
        instructions=INSTRUCTIONS,
        messages=(UserMessage(QUESTION),) if messages is None else messages,
        tools=tools,
        hosted_tools=(),
    )


def _seconds_per_prepare(connection: Any, request: Any, target_s: float) -> float:
    connection.prepare(request)  # the first build fills the caches: timed apart from the rest
    return time_calls(partial(connection.prepare, request), target_s=target_s)


def _openai_model(api: Literal["responses", "chat"] = "responses") -> Any:
    import openai

    from affordance_openai import OpenAIAdapter

    client = openai.OpenAI(api_key="bench", base_url=UNUSED_URL, max_retries=0)
    return OpenAIAdapter(MODEL, client=client, api=api).connection


def _body_per_tool(sample: Sample, target_s: float) -> None:
    """Per tool declared, a fresh adapter against a busy one (the module's docstring)."""

    def per_tool_us(connection: Any, count: int) -> float:
        request = _request(tuple(lookup_tools(count)))
        return _seconds_per_prepare(connection, request, target_s) / count * 1e6

    fresh = per_tool_us(_openai_model(), 1_000)
    busy = _openai_model()
    for _ in range(BUSY_REQUESTS):
        busy.prepare(_request(tuple(lookup_tools(BUSY_TOOLS))))
    gc.collect()
    sample.add(
        "body_fresh_1000_per_tool",
        "request body per tool (OpenAI Responses `prepare`): fresh adapter, 1,000 tools",
        "µs",
        fresh,
    )
    busy_label = f"busy adapter ({BUSY_REQUESTS * BUSY_TOOLS:,} other tools before)"
    for count in (1_025, 10_000):
        per_tool = per_tool_us(busy, count)
        sample.add(
            f"body_busy_{count}_per_tool",
            f"request body per tool: {busy_label}, {count:,} tools",
            "µs",
            per_tool,
        )
        sample.add(
            f"body_busy_{count}_ratio",
            f"request body per tool, busy with {count:,} tools ÷ fresh with 1,000",
            "",
            per_tool / fresh,
        )


def _anthropic_model() -> Any:
    import anthropic

    from affordance_anthropic import AnthropicAdapter

    client = anthropic.Anthropic(api_key="bench", base_url=UNUSED_URL, max_retries=0)
    return AnthropicAdapter("claude-loopback", client=client).connection


def _google_model() -> Any:
    from google import genai

    from affordance_google import GoogleAdapter

    client = genai.Client(api_key="bench", http_options={"base_url": UNUSED_URL})
    return GoogleAdapter("gemini-loopback", client=client).connection


_PROVIDER_MODELS: dict[str, tuple[str, Callable[[], Any]]] = {
    "openai_responses": ("OpenAI Responses", _openai_model),
    "openai_chat": ("OpenAI Chat", partial(_openai_model, "chat")),
    "anthropic": ("Anthropic", _anthropic_model),
    "google": ("Google", _google_model),
}


def _body_per_turn(sample: Sample, target_s: float) -> None:
    """Per earlier turn of history, on each provider's model (the module's docstring)."""
    histories = {turns: affordance_history(turns, {"city": CITY}) for turns in HISTORY_TURNS}
    for key, (provider, connect) in _PROVIDER_MODELS.items():
        try:
            connection = connect()
        except ImportError as error:
            sample.info[f"request body per turn, {provider}"] = f"not measured: {error}"
            continue
        per_turn: dict[int, float] = {}
        for turns, history in histories.items():
            seconds = _seconds_per_prepare(connection, _request(messages=history), target_s)
            per_turn[turns] = seconds / turns * 1e6
            sample.add(
                f"body_{key}_{turns}_per_turn",
                f"request body per turn of history ({provider} `prepare`): {turns:,} turns",
                "µs",
                per_turn[turns],
            )
        smaller, larger = HISTORY_TURNS
        sample.add(
            f"body_{key}_turn_ratio",
            f"request body per turn, {provider}: {larger:,} turns ÷ {smaller:,}",
            "",
            per_turn[larger] / per_turn[smaller],
        )


SESSION_EVENTS = (10, 10_000, 100_000)
APPENDS = 1_000


def _session_append(sample: Sample, target_s: float) -> None:
    """Per event appended to a session slice already holding N events: :data:`APPENDS` events
    applied in one timing (best of 7), onto a slice seeded with N and grown once before, so the
    slice is in its appendable form. Reading the slice (a tuple built once per change) is not
    timed; ``target_s`` is not used (a timing is one pass of the events)."""
    events = [_Noted(n) for n in range(APPENDS)]
    per_event: dict[int, float] = {}
    for held in SESSION_EVENTS:
        best = min(_appending(_session_holding(held), events) for _ in range(7))
        per_event[held] = best / APPENDS * 1e6
        sample.add(
            f"session_{held}_per_event",
            f"session append, per event, onto {held:,} events",
            "µs",
            per_event[held],
        )
    smallest, largest = SESSION_EVENTS[0], SESSION_EVENTS[-1]
    sample.add(
        "session_event_ratio",
        f"session append per event: onto {largest:,} ÷ onto {smallest:,}",
        "",
        per_event[largest] / per_event[smallest],
    )


@dataclass(frozen=True, slots=True)
class _Noted:
    """An event a session appends to its own slice."""

    n: int


def _session_holding(held: int) -> Any:
    from affordance import Session
    from affordance.runtime.record import append

    session = Session(record_events=False)
    session.register_reducer(_Noted, _Noted, append)
    session.seed(_Noted, tuple(_Noted(n) for n in range(held)))
    session.apply(_Noted(-1))  # the slice in its appendable form
    return session


def _appending(session: Any, events: list[_Noted]) -> float:
    gc.collect()
    started = time.perf_counter()
    for event in events:
        session.apply(event)
    return time.perf_counter() - started


def _body_per_turn_and_session(sample: Sample, target_s: float) -> None:
    _body_per_turn(sample, target_s)
    _session_append(sample, target_s)


_BODY_MEASURES: dict[str, Callable[[Sample, float], None]] = {
    "tools": _body_per_tool,
    "history": _body_per_turn_and_session,
}


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dimension", choices=DIMENSION_NAMES, default="tools")


if __name__ == "__main__":
    main("scaling_work", measure, JOBS, _arguments)
