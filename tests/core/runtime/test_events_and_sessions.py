"""Events reach subscribers and sessions; handler errors are isolated; sessions are thread-safe."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from dataclasses import dataclass

import pytest
from entity_tools import make_prompt

from affordance import EvaluationStarted, ModelAnswered, ModelRequestSent
from affordance.runtime import (
    EventBus,
    PromptExecuted,
    PromptRendered,
    Session,
    ToolInvoked,
)
from affordance.runtime.record.events import ToolHandlerStarted
from affordance.runtime.record.session import append, replace_latest, upsert_by
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


def test_an_evaluation_publishes_rendered_invoked_and_executed_events_in_order():
    bus = EventBus()
    seen: list[object] = []
    bus.subscribe(object, seen.append)
    adapter = ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok")])
    response = adapter.evaluate(make_prompt(), bus=bus)
    assert [type(e) for e in seen] == [
        PromptRendered,
        EvaluationStarted,
        ModelRequestSent,
        ModelAnswered,
        ToolHandlerStarted,
        ToolInvoked,
        ModelRequestSent,
        ModelAnswered,
        PromptExecuted,
    ]
    started = seen[4]
    assert isinstance(started, ToolHandlerStarted)
    invoked = seen[5]
    assert isinstance(invoked, ToolInvoked)
    assert (started.call_id, started.name, started.turn) == (invoked.call_id, "lookup", 1)
    assert (invoked.run_id, invoked.turn, invoked.success) == (response.run_id, 1, True)
    assert invoked.duration >= 0
    executed = seen[-1]
    assert isinstance(executed, PromptExecuted)
    assert executed.response is response


def test_an_event_nobody_would_see_is_not_built_and_one_somebody_would_is():
    bus, session = EventBus(), Session()
    assert not bus.wants(PromptRendered)
    assert not session.records(PromptRendered)
    assert session.records(ToolInvoked)  # the default session keeps its history

    rendered: list[PromptRendered] = []
    session.register_reducer(PromptRendered, PromptRendered, lambda kept, event: (*kept, event))
    ScriptedAdapter([text("ok")]).evaluate(make_prompt(), session=session)
    bus.subscribe(PromptRendered, rendered.append)
    ScriptedAdapter([text("ok")]).evaluate(make_prompt(), bus=bus)

    assert bus.wants(PromptRendered)
    assert len(session.slice(PromptRendered)) == 1
    assert len(rendered) == 1


def test_a_failing_subscriber_is_logged_and_does_not_break_the_run(caplog):
    bus = EventBus()
    later: list[object] = []

    def broken(event: object) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(ToolInvoked, broken)
    bus.subscribe(ToolInvoked, later.append)
    adapter = ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok")])
    with caplog.at_level(logging.ERROR, logger="affordance.events"):
        response = adapter.evaluate(make_prompt(), bus=bus)
    assert response.text == "ok"
    assert len(later) == 1
    assert "event handler failed" in caplog.text


def test_unsubscribe_stops_delivery():
    bus = EventBus()
    seen: list[object] = []
    bus.subscribe(str, seen.append)
    bus.publish("a")
    bus.unsubscribe(str, seen.append)
    bus.publish("b")
    assert seen == ["a"]
    assert not bus.has_subscribers()


def test_the_session_records_tool_invocations_and_executions_of_its_runs():
    session = Session()
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"entity_id": "a"})), text("one"), text("two")]
    )
    adapter.evaluate(make_prompt(), session=session)
    adapter.evaluate(make_prompt(), session=session)
    assert [e.name for e in session.slice(ToolInvoked)] == ["lookup"]
    assert [e.response.text for e in session.slice(PromptExecuted)] == ["one", "two"]


@dataclass(frozen=True)
class Counter:
    value: int


def test_custom_reducers_build_typed_slices():
    session = Session(record_events=False)
    session.register_reducer(Counter, Counter, replace_latest)
    session.apply(Counter(1))
    session.apply(Counter(2))
    assert session.slice(Counter) == (Counter(2),)
    session.register_reducer(ToolInvoked, ToolInvoked, upsert_by(lambda e: e.name))
    assert session.slice(ToolInvoked) == ()
    session.clear(Counter)
    assert session.slice(Counter) == ()
    session.seed(Counter, (Counter(7),))
    assert session.slice(Counter) == (Counter(7),)


def test_a_session_made_before_the_events_are_imported_keeps_them_by_default():
    """The session module does not import the events (``kept_by_default`` marks them), so a
    session built by importing that module alone must still keep ``ToolInvoked`` and
    ``PromptExecuted``: importing it imports the record room's facade, and so the events."""
    code = (
        "from affordance.runtime.record.session import Session\n"
        "session = Session()\n"
        "from affordance.runtime.record.events import PromptExecuted, ToolInvoked\n"
        "print(session.records(ToolInvoked), session.records(PromptExecuted),"
        " Session(record_events=False).records(ToolInvoked))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["True", "True", "False"]


def test_session_updates_are_safe_under_threads():
    session = Session(record_events=False)
    session.register_reducer(Counter, Counter, lambda current, event: (*current, event))

    def worker(offset: int) -> None:
        for n in range(500):
            session.apply(Counter(offset + n))

    threads = [threading.Thread(target=worker, args=(i * 1000,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(session.slice(Counter)) == 4000
    assert len({c.value for c in session.slice(Counter)}) == 4000


def test_an_appended_slice_reads_as_tuples_that_later_events_leave_alone():
    """``append`` grows a slice in place (no copy of the slice per event); what ``slice``
    returned before stays as it was, and a slice also fed by another reducer reads the same
    as before."""
    session = Session(record_events=False)
    session.register_reducer(Counter, Counter, append)
    for n in range(3):
        session.apply(Counter(n))
    early = session.slice(Counter)
    for n in range(3, 1000):
        session.apply(Counter(n))

    assert early == (Counter(0), Counter(1), Counter(2))
    assert session.slice(Counter) == tuple(Counter(n) for n in range(1000))
    assert session.slice(Counter) is session.slice(Counter)  # built once per change

    session.register_reducer(Counter, Counter, upsert_by(lambda e: e.value % 2))
    session.apply(Counter(1001))  # append adds it, then upsert drops the other odd ones
    assert session.slice(Counter) == (*(Counter(n) for n in range(0, 1000, 2)), Counter(1001))
    session.seed(Counter, (Counter(7),))
    session.apply(Counter(8))
    assert session.slice(Counter) == (Counter(7), Counter(8))


def test_the_test_suite_itself_cannot_reach_the_internet():
    import socket

    from affordance.testing import NetworkBlockedError

    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("example.com", 443), timeout=1)
    with socket.socket() as raw, pytest.raises(NetworkBlockedError):
        raw.connect(("93.184.216.34", 80))
