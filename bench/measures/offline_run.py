"""Offline run: the per-run cost of one tool call and then the final answer, with no network.

Each framework runs the scenario of ``_agents`` with its own offline model over and over:
synchronously (affordance ``evaluate``, pydantic-ai ``run_sync``, openai-agents
``Runner.run_sync``, llm ``chain().text()``), and awaited one after another on one event loop,
with a plain ``def`` tool and with an ``async def`` tool. The fake model answers at once, so
the time per run is the framework's own overhead.

For scale, the affordance job also times one bare thread hand-off and back with no framework
at all (``await asyncio.to_thread`` of a no-op): the least a run pays for a ``def`` tool that
must not run on the event loop, a wake-up of another thread each way, which depends on the
machine far more than on the code.

    python bench/measures/offline_run.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio

from _agents import ANSWER, build
from _harness import Sample, jobs_of, main, time_awaits, time_calls

FRAMEWORKS = ("affordance", "pydantic-ai", "openai-agents", "llm")
JOBS = jobs_of(FRAMEWORKS)


def check(answer: object, framework: str) -> None:
    if not isinstance(answer, str) or ANSWER not in answer:
        raise AssertionError(f"{framework} answered {answer!r}, expected {ANSWER!r}")


def measure(framework: str, args: argparse.Namespace) -> Sample:
    target, repeat = (0.05, 3) if args.quick else (0.1, 5)
    sample = Sample()

    agent = build(framework)
    if agent.run_sync is not None:
        check(agent.run_sync(), framework)
        seconds = time_calls(agent.run_sync, target_s=target, repeat=repeat)
        sample.add("sync", "offline run, sync", "µs", seconds * 1e6)

    async def measure_async() -> None:
        for key, label, async_tool in (
            ("async", "offline run, async, def tool", False),
            ("async_tool", "offline run, async, async def tool", True),
        ):
            subject = build(framework, async_tool=async_tool)
            if subject.run_async is None:
                continue
            check(await subject.run_async(), framework)
            seconds = await time_awaits(subject.run_async, target_s=target, repeat=repeat)
            sample.add(key, label, "µs", seconds * 1e6)
        if framework == "affordance":
            seconds = await time_awaits(_handoff, target_s=target, repeat=repeat)
            label = "bare thread hand-off and back, no framework"
            sample.add("handoff", label, "µs", seconds * 1e6)

    asyncio.run(measure_async())
    return sample


def _nothing() -> None:
    return None


async def _handoff() -> None:
    await asyncio.to_thread(_nothing)


if __name__ == "__main__":
    main("offline_run", measure, JOBS)
