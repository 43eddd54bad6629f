"""``async def`` handlers under the sync driver: one event loop per thread, cleaned per call."""

from __future__ import annotations

import asyncio
import gc
import threading
from dataclasses import dataclass

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Nothing:
    pass


def _run_twice(handler: object) -> list[object]:
    tool = Tool[Nothing, str](name="probe", description="Probe.", handler=handler)  # type: ignore[arg-type]
    prompt: PromptTemplate[None] = PromptTemplate(
        name="p", sections=[MarkdownSection(title="T", template="Go.", tools=[tool])]
    )
    adapter = ScriptedAdapter([tool_calls(tool_call("probe", {})), text("done")] * 2)
    return [adapter.evaluate(prompt).tool_results[0].result.value for _ in range(2)]


def test_calls_in_one_thread_share_one_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def probe(params: Nothing) -> ToolResult[str]:
        loops.append(asyncio.get_running_loop())
        return ToolResult.ok("seen")

    assert _run_twice(probe) == ["seen", "seen"]
    assert loops[0] is loops[1]
    assert not loops[0].is_running()


def test_tasks_a_handler_leaves_behind_are_cancelled_when_its_call_ends() -> None:
    left: list[asyncio.Task[None]] = []

    async def forever() -> None:
        await asyncio.Event().wait()

    async def probe(params: Nothing) -> ToolResult[str]:
        left.append(asyncio.get_running_loop().create_task(forever()))
        await asyncio.sleep(0)
        return ToolResult.ok("done")

    assert _run_twice(probe) == ["done", "done"]
    assert all(task.cancelled() for task in left)


def test_each_thread_has_its_own_loop_closed_when_the_thread_is_gone() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def probe(params: Nothing) -> ToolResult[str]:
        loops.append(asyncio.get_running_loop())
        return ToolResult.ok(threading.current_thread().name)

    worker = threading.Thread(target=_run_twice, args=(probe,), name="short-lived")
    worker.start()
    worker.join()
    _run_twice(probe)
    del worker
    gc.collect()

    assert loops[0] is loops[1]
    assert loops[2] is not loops[0]
    assert loops[0].is_closed()
    assert not loops[2].is_closed()
