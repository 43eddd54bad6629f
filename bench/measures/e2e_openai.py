"""End to end over HTTP: the scenario through the real ``openai`` SDK to the loopback server.

One run is two requests (the model calls ``get_weather``, then answers). Measured per run, for
Chat Completions and Responses: synchronously (affordance ``OpenAIAdapter.evaluate`` and the
SDK by hand) and awaited one after another on one event loop (every framework; the tool is an
``async def`` there, as the by-hand code calls it inline). The floor is the same two requests
written by hand with the typed SDK; ``openai-sdk-raw`` sends the same JSON bodies through the
client's public ``post`` and reads them with ``json.loads``, the SDK's fastest path (the
adapter's, less the request options ``post`` builds afresh: ``specs/adapters/openai.md``). The
server runs in its own process (``_loopback_process``).

    python bench/measures/e2e_openai.py [--framework F] [--json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio

from _agents import ANSWER, Loopback, build
from _harness import Sample, jobs_of, main, time_awaits, time_calls
from _loopback_process import loopback_server

FRAMEWORKS = ("openai-sdk", "openai-sdk-raw", "affordance", "pydantic-ai", "openai-agents")
JOBS = jobs_of(FRAMEWORKS)
APIS = ("chat", "responses")
API_LABELS = {"chat": "Chat Completions", "responses": "Responses"}


def check(answer: object, framework: str) -> None:
    if not isinstance(answer, str) or ANSWER not in answer:
        raise AssertionError(f"{framework} answered {answer!r}, expected {ANSWER!r}")


def measure(framework: str, args: argparse.Namespace) -> Sample:
    target, repeat = (0.1, 3) if args.quick else (0.15, 5)
    sample = Sample()

    def sync_runs(backend: Loopback, label: str) -> None:
        agent = build(framework, backend)
        try:
            if agent.run_sync is not None:
                check(agent.run_sync(), framework)
                seconds = time_calls(agent.run_sync, target_s=target, repeat=repeat)
                sample.add(f"{backend.api}_sync", f"{label}, sync", "ms", seconds * 1e3)
        finally:
            if agent.aclose is not None:
                asyncio.run(agent.aclose())

    async def async_runs(backend: Loopback, label: str) -> None:
        agent = build(framework, backend, async_tool=True)  # its async client binds to this loop
        try:
            if agent.run_async is not None:
                check(await agent.run_async(), framework)
                seconds = await time_awaits(agent.run_async, target_s=target, repeat=repeat)
                sample.add(f"{backend.api}_async", f"{label}, async", "ms", seconds * 1e3)
        finally:
            if agent.aclose is not None:
                await agent.aclose()

    with loopback_server() as base_url:
        for api in APIS:
            backend = Loopback(base_url, api)
            label = f"two requests + tool, {API_LABELS[api]}"
            sync_runs(backend, label)
            asyncio.run(async_runs(backend, label))
    return sample


if __name__ == "__main__":
    main("e2e_openai", measure, JOBS)
