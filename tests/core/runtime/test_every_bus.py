"""Process-wide subscribers (``EventBus.subscribe_every_bus``): the seam tracing plugs into.
They see the events of every bus, made before or after they subscribed, on every entry point;
they make runs build the request events; unsubscribed, runs build nothing for them again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from drivers import DRIVERS, run
from entity_tools import make_prompt

from affordance import EvaluationStarted, EventBus, ModelAnswered, PromptExecuted
from affordance.runtime import PrivateEventBus
from affordance.runtime.record.events import REQUEST_EVENTS, ToolHandlerStarted
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@pytest.fixture
def every_bus() -> Iterator[list[object]]:
    seen: list[object] = []
    EventBus.subscribe_every_bus(object, seen.append)
    yield seen
    EventBus.unsubscribe_every_bus(object, seen.append)


def script() -> ScriptedAdapter:
    return ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok")])


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_process_wide_subscriber_sees_every_run_without_a_bus_of_its_own(driver, every_bus):
    response, _ = run(script(), make_prompt(), driver)
    kinds = [type(event) for event in every_bus]
    assert kinds[kinds.index(EvaluationStarted) :].count(ModelAnswered) == 2
    assert ToolHandlerStarted in kinds
    assert isinstance(every_bus[-1], PromptExecuted)
    assert every_bus[-1].response.run_id == response.run_id


def test_a_bus_made_before_the_subscription_delivers_to_it_too_after_its_own_handlers():
    bus = EventBus()
    order: list[str] = []
    bus.subscribe(PromptExecuted, lambda event: order.append("own"))

    def shared(event: PromptExecuted) -> None:
        order.append("every bus")

    EventBus.subscribe_every_bus(PromptExecuted, shared)
    try:
        assert bus.wants(PromptExecuted)
        script().evaluate(make_prompt(), bus=bus)
    finally:
        EventBus.unsubscribe_every_bus(PromptExecuted, shared)
    assert order == ["own", "every bus"]


def test_a_request_event_subscriber_makes_every_bus_watch_requests_until_it_leaves():
    seen: list[object] = []
    assert not EventBus().watches_requests
    EventBus.subscribe_every_bus(ModelAnswered, seen.append)
    try:
        assert EventBus().watches_requests
        script().evaluate(make_prompt())
    finally:
        EventBus.unsubscribe_every_bus(ModelAnswered, seen.append)
    assert len(seen) == 2
    bus = EventBus()
    assert not bus.watches_requests
    assert not any(bus.wants(kind) for kind in (*REQUEST_EVENTS, ToolHandlerStarted))
    script().evaluate(make_prompt())
    assert len(seen) == 2  # nothing more delivered, nothing built


def test_unsubscribing_what_was_never_subscribed_changes_nothing():
    EventBus.unsubscribe_every_bus(ModelAnswered, print)
    assert not EventBus().wants(ModelAnswered)


def test_a_failing_process_wide_subscriber_is_logged_and_the_run_goes_on(caplog):
    def broken(event: object) -> None:
        raise RuntimeError("subscriber bug")

    EventBus.subscribe_every_bus(PromptExecuted, broken)
    try:
        response = script().evaluate(make_prompt())
    finally:
        EventBus.unsubscribe_every_bus(PromptExecuted, broken)
    assert response.text == "ok"
    assert "event handler failed" in caplog.text


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_private_bus_is_heard_by_its_own_handlers_only(driver, every_bus):
    own: list[object] = []
    bus = PrivateEventBus()
    assert not bus.watches_requests  # a process-wide subscriber watches, but not this bus
    assert not bus.wants(PromptExecuted)
    bus.subscribe(PromptExecuted, own.append)
    assert bus.wants(PromptExecuted)
    assert bus.wants_either(ModelAnswered, PromptExecuted)
    response, _ = run(script(), make_prompt(), driver, bus=bus)
    assert every_bus == []  # the run published nothing a process-wide handler heard
    (executed,) = own
    assert isinstance(executed, PromptExecuted)
    assert executed.response.run_id == response.run_id
