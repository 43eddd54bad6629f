"""Concurrency: N runs of the scenario started at once with ``asyncio.gather``.

Reported per (N, backend): the wall time from the first start to the last answer, and the
peak resident memory the burst added (the process's peak RSS minus its RSS just before the
burst, after one warm-up run). Each (framework, N, backend) is a fresh process, so peaks do
not carry over. Tools are ``async def`` here (a plain ``def`` would measure the default thread
pool instead of the framework).

Backends: ``offline`` (each framework's own fake model; affordance ``ScriptedAdapter``) and
``loopback`` (the real SDK over HTTP to the loopback server in its own process, Responses API;
the floor is the two requests written by hand).

    python bench/measures/concurrency.py [--framework F --runs N --backend B] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time

from _agents import ANSWER, Loopback, build
from _harness import Sample, Skip, current_rss_mb, main, peak_rss_mb
from _loopback_process import loopback_server

RUNS = (200, 2000)
OFFLINE = ("affordance", "pydantic-ai", "openai-agents", "llm")
LOOPBACK = ("openai-sdk", "affordance", "pydantic-ai", "openai-agents")
FRAMEWORKS = tuple(dict.fromkeys(OFFLINE + LOOPBACK))
JOBS = [
    (framework, ("--runs", str(runs), "--backend", backend))
    for backend, frameworks in (("offline", OFFLINE), ("loopback", LOOPBACK))
    for runs in RUNS
    for framework in frameworks
]
LOOPBACK_API = "responses"


async def burst(framework: str, backend: Loopback | None, runs: int, sample: Sample) -> None:
    agent = build(framework, backend, async_tool=True)
    if agent.run_async is None:
        raise Skip("no async run")
    try:
        if await agent.run_async() != ANSWER:  # warm-up: imports, caches, one connection
            raise AssertionError(f"{framework} gave a wrong answer")
        gc.collect()
        before = current_rss_mb()
        started = time.perf_counter()
        answers = await asyncio.gather(
            *(agent.run_async() for _ in range(runs)), return_exceptions=True
        )
        wall = time.perf_counter() - started
        peak = peak_rss_mb()
    finally:
        if agent.aclose is not None:
            await agent.aclose()
    failed = [answer for answer in answers if answer != ANSWER]
    if failed:
        first = failed[0]
        shown = f"{type(first).__name__}: {first}" if isinstance(first, BaseException) else first
        raise RuntimeError(
            f"{len(failed)} of {runs} runs failed after {wall:.1f} s (first: {shown!r})"
        )
    where = "offline" if backend is None else "loopback"
    sample.add(
        f"{where}_{runs}_wall", f"{runs} concurrent runs, {where}: wall time", "ms", wall * 1e3
    )
    sample.add(
        f"{where}_{runs}_memory",
        f"{runs} concurrent runs, {where}: peak RSS added",
        "MiB",
        max(0.0, peak - before),
    )
    sample.info["rss before burst MiB"] = round(before, 1)


def measure(framework: str, args: argparse.Namespace) -> Sample:
    sample = Sample()
    if args.backend == "offline":
        asyncio.run(burst(framework, None, args.runs, sample))
        return sample
    with loopback_server() as base_url:
        asyncio.run(burst(framework, Loopback(base_url, LOOPBACK_API), args.runs, sample))
    return sample


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=int, default=200, help="runs started at once")
    parser.add_argument("--backend", choices=("offline", "loopback"), default="offline")


if __name__ == "__main__":
    main("concurrency", measure, JOBS, _arguments)
