"""Per-step overhead of a durable run on Temporal against ``aevaluate``, same conversation.

Run: `.venv/bin/python bench/bench_temporal.py [--turns 3] [--runs 30] [--burst 20]` (the dev
venv has affordance-temporal, temporalio and the `temporal` CLI; `python3 dev.py setup` makes
it). Prints numbers; asserts nothing.

The conversation is scripted and offline (``ScriptedAdapter``): the model calls one tool per
turn for ``--turns`` turns, then answers, so a run is ``2 * turns + 1`` steps (model requests
plus tool calls). Each step of a durable run is an activity recorded in the run's history on a
real dev server (`temporal server start-dev`, in memory, on loopback) with one worker in this
process. Reported, median over ``--runs`` sequential runs:

- ``aevaluate``: the loop in process;
- durable, sandboxed: Temporal's workflow sandbox (the default of ``durable_worker``);
- durable, unsandboxed: ``durable_worker(..., sandboxed=False)``;

and the per-step overhead (durable - aevaluate) / steps. Then ``--burst`` durable runs started
at once: wall time and runs per second (what one worker process on this machine sustains).

Standalone rather than a measure of `bench/run.py`: no peer framework runs on Temporal here.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import platform
import statistics
import sys
import time
import uuid
from dataclasses import dataclass

from temporalio.client import Client

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.runtime import ModelRequest, ProviderTurn, ToolResultMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_temporal import PromptRegistry, durable_worker, start_run
from affordance_temporal.testing import DevServer

PROMPT = "bench.agent"


@dataclass(frozen=True, slots=True)
class Lookup:
    key: str


def build_prompt() -> PromptTemplate[None]:
    def lookup(params: Lookup) -> ToolResult[str]:
        return ToolResult.ok(f"value of {params.key}", "")

    tool = Tool[Lookup, str](name="lookup", description="Look a key up.", handler=lookup)
    section = MarkdownSection(title="Task", template="Look three keys up.", tools=[tool])
    return PromptTemplate(ns="bench", key="agent", sections=[section])


def make_adapter(turns: int) -> ScriptedAdapter:
    def respond(request: ModelRequest) -> ProviderTurn:
        if request.turn <= turns:
            return tool_calls(tool_call("lookup", {"key": f"k{request.turn}"}))
        done = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
        return text("; ".join(done))

    return ScriptedAdapter(responder=respond)


async def plain_runs(turns: int, runs: int) -> list[float]:
    prompt = build_prompt()
    adapter = make_adapter(turns)
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        await adapter.aevaluate(prompt)
        timings.append(time.perf_counter() - started)
    return timings


async def durable_runs(
    address: str, turns: int, runs: int, burst: int, *, sandboxed: bool
) -> tuple[list[float], float]:
    client = await Client.connect(address)
    registry = PromptRegistry({PROMPT: build_prompt})
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    worker = durable_worker(
        client, registry, task_queue=queue, adapter=make_adapter(turns), sandboxed=sandboxed
    )

    async def one() -> float:
        started = time.perf_counter()
        handle = await start_run(
            client, registry, PROMPT, task_queue=queue, workflow_id=f"b-{uuid.uuid4().hex}"
        )
        await handle.result()
        return time.perf_counter() - started

    async with worker:
        await one()  # warm-up: the sandbox's first run imports the workflow module
        timings = [await one() for _ in range(runs)]
        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(burst)))
        wall = time.perf_counter() - started
    return timings, wall


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--turns", type=int, default=3, help="tool turns before the answer")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--burst", type=int, default=20)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the tool-call log records are not the point here
    steps = 2 * args.turns + 1
    plain_timings = asyncio.run(plain_runs(args.turns, args.runs))
    plain, fastest = statistics.median(plain_timings), min(plain_timings)
    with DevServer() as server:
        results: dict[str, tuple[list[float], float]] = {}
        for sandboxed in (True, False):
            label = "durable, sandboxed" if sandboxed else "durable, unsandboxed"
            results[label] = asyncio.run(
                durable_runs(server.address, args.turns, args.runs, args.burst, sandboxed=sandboxed)
            )
    print(
        f"python {sys.version.split()[0]} on {platform.machine()}, {args.turns} tool turns "
        f"= {steps} steps per run, median of {args.runs} sequential runs"
    )
    print()
    print(
        "| runner | run ms | fastest run ms | per step ms | overhead per step ms "
        "| burst wall ms | runs/s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(f"| aevaluate | {ms(plain)} | {ms(fastest)} | {ms(plain / steps)} | — | — | — |")
    for label, (timings, wall) in results.items():
        run = statistics.median(timings)
        print(
            f"| {label} | {ms(run)} | {ms(min(timings))} | {ms(run / steps)} | "
            f"{ms((run - plain) / steps)} | {ms(wall)} | {args.burst / wall:.1f} |"
        )


if __name__ == "__main__":
    main()
