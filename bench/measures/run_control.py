"""Run controls: what usage limits and an output validator add to an offline run.

The scenario of ``offline_run`` (one tool call, then the answer, from a scripted model that
answers at once), run plain and with run controls set: ``limits=UsageLimits(...)`` bounding
requests, calls and tokens (checked before each request and before the calls), and a prompt
with an output validator (called on the final answer). Plain and controlled runs alternate,
one short timing each, and the ratio of each pair is kept: the rows ``ratio_*`` are the
median ratio, side by side on the same machine state.

    python bench/measures/run_control.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Awaitable, Callable
from typing import Any

from _agents import ANSWER, affordance_prompt
from _harness import Sample, jobs_of, main, time_awaits, time_calls

FRAMEWORKS = ("affordance",)
JOBS = jobs_of(FRAMEWORKS)


def measure(framework: str, args: argparse.Namespace) -> Sample:
    from affordance import PromptTemplate, UsageLimits
    from affordance.adapters import ModelRequest, ProviderTurn, ToolResultMessage
    from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

    target, pairs = (0.03, 5) if args.quick else (0.05, 15)
    prompt, params = affordance_prompt(async_tool=False)
    checked: PromptTemplate[Any] = PromptTemplate(
        name=prompt.name, sections=prompt.sections, output_validators=(_check,)
    )
    limits = UsageLimits(requests=8, tool_calls=8, total_tokens=1_000_000)
    call = tool_calls(tool_call("get_weather", {"city": params.city}, call_id="call_1"))
    answer = text(ANSWER)

    def responder(request: ModelRequest) -> ProviderTurn:
        for message in request.messages:
            if isinstance(message, ToolResultMessage):
                return answer
        return call

    adapter = ScriptedAdapter(responder=responder, record=False)

    def plain() -> object:
        return adapter.evaluate(prompt, params)

    def controlled() -> object:
        return adapter.evaluate(checked, params, limits=limits)

    async def aplain() -> object:
        return await adapter.aevaluate(prompt, params)

    async def acontrolled() -> object:
        return await adapter.aevaluate(checked, params, limits=limits)

    sample = Sample()
    _pairs_sync(sample, plain, controlled, target, pairs)
    asyncio.run(_pairs_async(sample, aplain, acontrolled, target, pairs))
    return sample


def _check(answer: str) -> None:
    if ANSWER not in answer:
        raise AssertionError(f"unexpected answer {answer!r}")


def _pairs_sync(
    sample: Sample,
    plain: Callable[[], object],
    controlled: Callable[[], object],
    target: float,
    pairs: int,
) -> None:
    timings = [
        (
            time_calls(plain, target_s=target, repeat=1),
            time_calls(controlled, target_s=target, repeat=1),
        )
        for _ in range(pairs)
    ]
    _add(sample, "sync", "evaluate", timings)


async def _pairs_async(
    sample: Sample,
    plain: Callable[[], Awaitable[object]],
    controlled: Callable[[], Awaitable[object]],
    target: float,
    pairs: int,
) -> None:
    timings = [
        (
            await time_awaits(plain, target_s=target, repeat=1),
            await time_awaits(controlled, target_s=target, repeat=1),
        )
        for _ in range(pairs)
    ]
    _add(sample, "async", "aevaluate", timings)


def _add(sample: Sample, key: str, entry: str, timings: list[tuple[float, float]]) -> None:
    sample.add(
        f"plain_{key}", f"offline run, `{entry}`, plain", "µs", min(p for p, _ in timings) * 1e6
    )
    sample.add(
        f"controlled_{key}",
        f"offline run, `{entry}`, limits and a validator",
        "µs",
        min(c for _, c in timings) * 1e6,
    )
    ratio = statistics.median(c / p for p, c in timings)
    sample.add(
        f"ratio_{key}", f"`{entry}` with run controls / plain (median of pairs)", "ratio", ratio
    )


if __name__ == "__main__":
    main("run_control", measure, JOBS)
