"""Sync handlers without a timeout under ``aevaluate``: reused worker threads."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.runtime.calls._offthread import _Workers, await_in_worker
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="none")


@dataclass(frozen=True)
class Where:
    city: str


def test_a_handler_runs_off_the_loop_on_a_thread_that_is_reused() -> None:
    seen: list[threading.Thread] = []

    def where(params: Where) -> ToolResult[str]:
        seen.append(threading.current_thread())
        return ToolResult.ok(params.city)

    tool = Tool[Where, str](name="where", description="Where.", handler=where)
    prompt: PromptTemplate[None] = PromptTemplate(
        name="p", sections=[MarkdownSection(title="T", template="Go.", tools=[tool])]
    )
    turns = []
    for index in range(5):
        turns += [tool_calls(tool_call("where", {"city": f"c{index}"})), text("done")]
    adapter = ScriptedAdapter(turns * 2)

    async def five_runs() -> list[object]:
        return [(await adapter.aevaluate(prompt)).tool_results[0].result.value for _ in range(5)]

    asyncio.run(five_runs())  # warm: the pool has a worker
    before = _workers_alive()
    seen.clear()

    assert asyncio.run(five_runs()) == ["c0", "c1", "c2", "c3", "c4"]
    assert threading.main_thread() not in seen
    assert all(thread.name == "affordance-tool-worker" and thread.daemon for thread in seen)
    assert _workers_alive() == before  # one call at a time: an idle worker takes each


def test_parallel_calls_run_on_parallel_workers_up_to_the_bound() -> None:
    workers = _Workers(limit=3)
    barrier = threading.Barrier(3, timeout=5)
    release = threading.Event()
    running: list[str] = []
    lock = threading.Lock()

    def job(name: str) -> None:
        with lock:
            running.append(name)
        if name != "late":
            barrier.wait()  # the first three meet: they run at the same time
        release.wait(5)

    for name in ("a", "b", "c", "late"):
        workers.submit(lambda name=name: job(name))  # type: ignore[misc]
    assert _wait_for(lambda: len(running) >= 3)
    assert "late" not in running  # three threads, all busy: the fourth job waits its turn
    release.set()

    assert _wait_for(lambda: "late" in running)
    assert workers._threads == 3  # the late job ran on one of the three


def test_the_callers_context_reaches_the_handler_and_its_errors_come_back() -> None:
    def read() -> str:
        return REQUEST_ID.get()

    def fail() -> None:
        raise LookupError("no such row")

    async def scenario() -> str:
        REQUEST_ID.set("req-42")
        with pytest.raises(LookupError, match="no such row"):
            await await_in_worker(fail)
        return str(await await_in_worker(read))

    assert asyncio.run(scenario()) == "req-42"


def test_a_cancelled_wait_drops_the_late_result_and_the_worker_goes_on() -> None:
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        return "late"

    async def scenario() -> str:
        waiting = asyncio.ensure_future(await_in_worker(slow))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 5)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        release.set()
        return str(await await_in_worker(lambda: "next"))

    assert asyncio.run(scenario()) == "next"


def test_a_result_arriving_after_its_loop_closed_is_dropped_quietly() -> None:
    release, done = threading.Event(), threading.Event()

    def slow() -> str:
        release.wait(5)
        return "nobody listens"

    async def abandon() -> None:
        task = asyncio.ensure_future(await_in_worker(slow))
        await asyncio.sleep(0)
        task.cancel()

    asyncio.run(abandon())
    release.set()

    async def after() -> None:
        await await_in_worker(done.set)

    asyncio.run(after())
    assert done.is_set()


def test_after_fork_the_child_starts_with_no_threads() -> None:
    workers = _Workers(limit=2)
    finished = threading.Event()
    workers.submit(finished.set)
    assert finished.wait(5)

    workers.forget_threads()
    again = threading.Event()
    workers.submit(again.set)

    assert again.wait(5)


def _wait_for(condition: Callable[[], bool], rounds: int = 500) -> bool:
    for _ in range(rounds):
        if condition():
            return True
        threading.Event().wait(0.01)
    return False


def _workers_alive() -> int:
    return sum(1 for thread in threading.enumerate() if thread.name == "affordance-tool-worker")
