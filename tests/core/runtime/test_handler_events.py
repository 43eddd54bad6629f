"""The executor's handler events (``runtime/calls/_handler_events.py``): ``ToolHandlerStarted``
before a handler's first attempt and ``ToolAttemptFailed`` after each failed one, built only when
watched, and published in a context private to the call — what a subscriber sets there holds for
the handler, whichever thread or task runs it, and is gone once the call ends."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
from drivers import DRIVERS, run
from entity_tools import LookupParams, make_prompt

from affordance import EventBus, RetryPolicy, Tool, ToolError, ToolResult
from affordance.runtime.record.events import ToolAttemptFailed, ToolHandlerStarted
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("MARK", default="unset")


def mark_the_call(event: ToolHandlerStarted) -> None:
    MARK.set(f"call {event.call_id}")


@pytest.fixture
def marking() -> EventBus:
    bus = EventBus()
    bus.subscribe(ToolHandlerStarted, mark_the_call)
    return bus


def sync_handler(params: LookupParams) -> ToolResult[str]:
    return ToolResult.ok(MARK.get())


async def async_handler(params: LookupParams) -> ToolResult[str]:
    await asyncio.sleep(0)
    return ToolResult.ok(MARK.get())


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    ("handler", "timeout"),
    [(sync_handler, None), (sync_handler, 5.0), (async_handler, None), (async_handler, 5.0)],
    ids=["def", "def-timeout", "async-def", "async-def-timeout"],
)
def test_what_a_subscriber_sets_holds_for_the_handler_and_not_after_the_call(
    driver, handler, timeout, marking
):
    tool = Tool[LookupParams, str](
        name="marked", description="Reads the mark.", handler=handler, timeout=timeout
    )
    calls = [tool_call("marked", {"entity_id": "a"}), tool_call("marked", {"entity_id": "b"})]
    adapter = ScriptedAdapter([tool_calls(*calls), text("ok")])
    response, _ = run(adapter, make_prompt(tool), driver, bus=marking)
    ids = [result.call.id for result in response.tool_results]
    assert [result.result.value for result in response.tool_results] == [
        f"call {call_id}" for call_id in ids
    ]
    assert MARK.get() == "unset"  # nothing leaked into the caller's context


def test_the_started_event_names_the_call_and_its_tool(marking):
    started: list[ToolHandlerStarted] = []
    marking.subscribe(ToolHandlerStarted, started.append)
    adapter = ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok")])
    response = adapter.evaluate(make_prompt(), bus=marking)
    (event,) = started
    assert (event.run_id, event.turn, event.name, event.tool.name) == (
        response.run_id,
        1,
        "lookup",
        "lookup",
    )
    assert event.params == LookupParams("a")
    assert event.call_id == response.tool_results[0].call.id


def flaky_then_fine() -> Tool[LookupParams, str]:
    attempts: list[int] = []

    def handler(params: LookupParams) -> ToolResult[str]:
        attempts.append(1)
        if len(attempts) < 3:
            raise ToolError("BUSY", "try again", retryable=True)
        return ToolResult.ok("fine")

    retry = RetryPolicy(max_attempts=3, base_delay=0.0, jitter=0.0)
    return Tool[LookupParams, str](name="flaky", description="Flaky.", handler=handler, retry=retry)


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_failed_attempt_is_published_with_its_code_and_whether_another_follows(driver):
    bus = EventBus()
    failed: list[ToolAttemptFailed] = []
    bus.subscribe(ToolAttemptFailed, failed.append)
    adapter = ScriptedAdapter([tool_calls(tool_call("flaky", {"entity_id": "a"})), text("ok")])
    response, _ = run(adapter, make_prompt(flaky_then_fine()), driver, bus=bus)
    assert response.tool_results[0].result.value == "fine"
    assert [(e.attempt, e.error_code, e.retrying) for e in failed] == [
        (1, "BUSY", True),
        (2, "BUSY", True),
    ]


def test_the_last_failed_attempt_says_no_retry_follows():
    bus = EventBus()
    failed: list[ToolAttemptFailed] = []
    bus.subscribe(ToolAttemptFailed, failed.append)
    adapter = ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "boom"})), text("ok")])
    adapter.evaluate(make_prompt(), bus=bus)
    assert [(e.attempt, e.error_code, e.retrying) for e in failed] == [(1, "RuntimeError", False)]


def test_unwatched_calls_build_no_handler_events_and_keep_the_callers_context():
    bus = EventBus()
    assert not bus.wants(ToolHandlerStarted)

    def sets_the_mark(params: LookupParams) -> ToolResult[str]:
        MARK.set("set by the handler")
        return ToolResult.ok("ok")

    tool = Tool[LookupParams, str](name="setter", description="Sets.", handler=sets_the_mark)
    adapter = ScriptedAdapter([tool_calls(tool_call("setter", {"entity_id": "a"})), text("ok")])
    context = contextvars.copy_context()
    context.run(adapter.evaluate, make_prompt(tool), bus=bus)
    # unwatched, the call runs in the caller's own context, as it always has
    assert context[MARK] == "set by the handler"
