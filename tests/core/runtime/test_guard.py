"""What a handler may raise or do to the run (``runtime/_guard.py``, through the executor).

Every ``BaseException`` a handler raises becomes a failed result except ``KeyboardInterrupt``
and ``SystemExit``, which propagate; a real cancellation of the run propagates as cancellation;
an ``async def`` handler that blocks the event loop past its timeout is reported as timed out.
Each case runs through both drivers, with sync and async handlers, with and without a timeout
(a timeout moves sync handlers onto their own thread: the off-thread paths of ``_offthread``).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.runtime import EventBus, ToolExecutor, ToolInvoked
from affordance.testing import FakeClock, ScriptedAdapter, text, tool_call, tool_calls

MARKER = "zq-CONTENT-5e2a"  # the content_free_logs fixture fails a test whose logs carry it
A_LONG_TIMEOUT = 30.0  # never reached: these handlers finish at once


@dataclass(frozen=True)
class Note:
    text: str


class Custom(BaseException):
    """A BaseException subclass of the application's own."""


def echo(params: Note) -> ToolResult[str]:
    return ToolResult.ok(params.text, message="echoed")


def prompt_with(handler: Callable[..., Any], timeout: float | None) -> PromptTemplate[Any]:
    tools = [
        Tool[Note, Any](name="hostile", description="Misbehave.", handler=handler, timeout=timeout),
        Tool[Note, str](name="echo", description="Echo.", handler=echo),
    ]
    return PromptTemplate(
        name="guard", sections=[MarkdownSection(title="T", template=MARKER, tools=tools)]
    )


def raising(error: type[BaseException], *, asynchronous: bool) -> Callable[..., Any]:
    if asynchronous:

        async def raise_async(params: Note) -> ToolResult[None]:
            await asyncio.sleep(0)
            raise error(f"{MARKER} from the handler")

        return raise_async

    def raise_sync(params: Note) -> ToolResult[None]:
        raise error(f"{MARKER} from the handler")

    return raise_sync


def script(*, siblings: bool) -> list[Any]:
    """A first turn, then the hostile call (with a sibling call, or alone), then an answer."""
    hostile = tool_call("hostile", {"text": MARKER}, call_id="hostile-1")
    second = (hostile, tool_call("echo", {"text": MARKER})) if siblings else (hostile,)
    return [tool_calls(tool_call("echo", {"text": MARKER})), tool_calls(*second), text("done")]


def evaluate(adapter: ScriptedAdapter, prompt: Any, *, asynchronous: bool, **options: Any) -> Any:
    if asynchronous:
        return asyncio.run(adapter.aevaluate(prompt, **options))
    return adapter.evaluate(prompt, **options)


DRIVERS = pytest.mark.parametrize("driver_async", [False, True], ids=["run", "arun"])
HANDLERS = pytest.mark.parametrize("handler_async", [False, True], ids=["def", "async-def"])
TIMEOUTS = pytest.mark.parametrize("timeout", [None, A_LONG_TIMEOUT], ids=["no-timeout", "timeout"])


# -- BaseExceptions that become failed results ---------------------------------------------------


@DRIVERS
@HANDLERS
@TIMEOUTS
@pytest.mark.parametrize("siblings", [False, True], ids=["alone", "with-sibling"])
@pytest.mark.parametrize("error", [asyncio.CancelledError, GeneratorExit, Custom])
def test_a_handler_raising_a_base_exception_is_a_failed_result(
    error, siblings, timeout, handler_async, driver_async, content_free_logs
):
    adapter = ScriptedAdapter(script(siblings=siblings))
    prompt = prompt_with(raising(error, asynchronous=handler_async), timeout)
    bus = EventBus()
    events: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, events.append)
    response = evaluate(adapter, prompt, asynchronous=driver_async, bus=bus)
    assert response.text == "done"
    results = [r.result for r in response.tool_results]
    assert results[0].success  # the turn before is kept
    hostile = results[1]
    assert not hostile.success
    assert hostile.message.startswith(f"Tool 'hostile' failed: {error.__name__}")
    if siblings:
        assert results[2].success
    assert [e.name for e in events][1] == "hostile"
    (record,) = [r for r in content_free_logs.records if r.affordance_tool == "hostile"]  # type: ignore[attr-defined]
    assert record.affordance_error_code == error.__name__  # type: ignore[attr-defined]


def test_an_exception_whose_str_fails_is_named_in_the_result(content_free_logs):
    class UnprintableError(Exception):
        def __str__(self) -> str:
            raise RuntimeError(MARKER)

    def handler(params: Note) -> ToolResult[None]:
        raise UnprintableError

    adapter = ScriptedAdapter(script(siblings=True))
    response = adapter.evaluate(prompt_with(handler, None))
    assert response.tool_results[1].result.message == "Tool 'hostile' failed: UnprintableError"


# -- BaseExceptions that propagate -----------------------------------------------------------------


@DRIVERS
@HANDLERS
@TIMEOUTS
@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_from_a_handler_propagate(
    error, timeout, handler_async, driver_async, content_free_logs
):
    adapter = ScriptedAdapter(script(siblings=False))
    prompt = prompt_with(raising(error, asynchronous=handler_async), timeout)
    with pytest.raises(error):
        evaluate(adapter, prompt, asynchronous=driver_async)
    # asyncio may leave a task holding the exception; finalize it here, not at a random later
    # point (on 3.11 its "never retrieved" report, formatted inside another ast.parse, trips
    # CPython's AST recursion check).
    gc.collect()


# -- a real cancellation of the run --------------------------------------------------------------


def blocking(*, asynchronous: bool, started: threading.Event, release: threading.Event) -> Any:
    """A handler that signals it started, then waits (for the release, or forever if async)."""
    if asynchronous:

        async def wait_async(params: Note) -> ToolResult[None]:
            started.set()
            await asyncio.Event().wait()
            return ToolResult.ok(None)

        return wait_async

    def wait_sync(params: Note) -> ToolResult[None]:
        started.set()
        release.wait()
        return ToolResult.ok(None)

    return wait_sync


@HANDLERS
@TIMEOUTS
@pytest.mark.parametrize("siblings", [False, True], ids=["alone", "with-sibling"])
def test_cancelling_the_run_propagates_as_cancellation(
    siblings, timeout, handler_async, content_free_logs
):
    started, release = threading.Event(), threading.Event()
    handler = blocking(asynchronous=handler_async, started=started, release=release)
    adapter = ScriptedAdapter(script(siblings=siblings))
    prompt = prompt_with(handler, timeout)

    async def main() -> asyncio.Task[Any]:
        task = asyncio.ensure_future(adapter.aevaluate(prompt))
        while not started.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()  # a sync handler's thread keeps running; the loop's shutdown waits for it
        return task

    try:
        task = asyncio.run(main())
    finally:
        release.set()  # let an abandoned sync handler's thread finish
    assert task.cancelled()


# -- an async handler that blocks the event loop past its timeout -------------------------------


def advancing(clock: FakeClock, seconds: float) -> Callable[..., Any]:
    """An async handler that "blocks the loop" for ``seconds`` of the executor's clock."""

    async def hog_the_loop(params: Note) -> ToolResult[str]:
        clock.advance(seconds)  # a blocking call: nothing awaited while the time passes
        return ToolResult.ok(MARKER)

    return hog_the_loop


@DRIVERS
@pytest.mark.parametrize("siblings", [False, True], ids=["alone", "with-sibling"])
def test_an_async_handler_blocking_the_loop_past_its_timeout_is_timed_out(
    siblings, driver_async, content_free_logs
):
    clock = FakeClock()
    adapter = ScriptedAdapter(script(siblings=siblings), executor=ToolExecutor(clock=clock))
    prompt = prompt_with(advancing(clock, 0.2), timeout=0.05)
    response = evaluate(adapter, prompt, asynchronous=driver_async)
    hostile = response.tool_results[1].result
    assert not hostile.success
    assert hostile.message == "Tool 'hostile' timed out after 0.05s."
    assert response.text == "done"
    warnings = [r for r in content_free_logs.records if r.levelno == logging.WARNING]
    (blocked,) = [r for r in warnings if "blocked" in r.getMessage()]
    assert blocked.affordance_tool == "hostile"  # type: ignore[attr-defined]
    assert blocked.affordance_handler.endswith("hog_the_loop")  # type: ignore[attr-defined]
    assert blocked.affordance_timeout == 0.05  # type: ignore[attr-defined]
    (call,) = [r for r in warnings if getattr(r, "affordance_outcome", None) == "failure"]
    assert call.affordance_error_code == "timeout"  # type: ignore[attr-defined]


@DRIVERS
def test_an_async_handler_finishing_within_its_timeout_succeeds(driver_async, content_free_logs):
    clock = FakeClock()
    adapter = ScriptedAdapter(script(siblings=False), executor=ToolExecutor(clock=clock))
    prompt = prompt_with(advancing(clock, 0.05), timeout=0.05)  # exactly the timeout: in time
    response = evaluate(adapter, prompt, asynchronous=driver_async)
    assert response.tool_results[1].result.success
    assert not [r for r in content_free_logs.records if r.levelno >= logging.WARNING]


@DRIVERS
def test_time_sleep_in_an_async_handler_past_its_timeout_is_timed_out(
    driver_async, content_free_logs
):
    """The real clock: ``time.sleep`` inside ``async def`` cannot be interrupted by wait_for."""

    async def sleeps(params: Note) -> ToolResult[str]:
        time.sleep(0.2)
        return ToolResult.ok(MARKER)

    adapter = ScriptedAdapter(script(siblings=True))
    response = evaluate(adapter, prompt_with(sleeps, timeout=0.05), asynchronous=driver_async)
    hostile = response.tool_results[1].result
    assert hostile.message == "Tool 'hostile' timed out after 0.05s."
    assert response.tool_results[2].result.success
