"""A run's requests to its model as events, for tracing and metrics: one ``ModelRequestSent``
and one ``ModelAnswered`` (or ``ModelRequestFailed``) per request, timed, the first piece of a
stream timed too, ``EvaluationStarted`` and ``EvaluationFailed`` around the run — on every entry
point — and nothing built when nobody watches."""

from __future__ import annotations

import pytest
from drivers import DRIVERS, run
from entity_tools import make_prompt

from affordance import (
    EvaluationFailed,
    EvaluationStarted,
    EventBus,
    ModelAnswered,
    ModelRequestFailed,
    ModelRequestSent,
    PromptEvaluationError,
    Session,
)
from affordance.adapters import Usage
from affordance.runtime.record.events import REQUEST_EVENTS
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


def watched() -> tuple[EventBus, list[object]]:
    bus, seen = EventBus(), []
    for event_type in REQUEST_EVENTS:
        bus.subscribe(event_type, seen.append)
    return bus, seen


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_request_is_sent_and_answered_with_its_timing_and_usage(driver):
    bus, seen = watched()
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok", usage=Usage(30, 2))]
    )
    response, _ = run(adapter, make_prompt(), driver, bus=bus)
    assert [type(e) for e in seen] == [
        EvaluationStarted,
        ModelRequestSent,
        ModelAnswered,
        ModelRequestSent,
        ModelAnswered,
    ]
    started = seen[0]
    assert isinstance(started, EvaluationStarted)
    assert (started.run_id, started.provider) == (response.run_id, "scripted")
    assert not started.resumed
    sent, answered = seen[3], seen[4]
    assert isinstance(sent, ModelRequestSent)
    assert isinstance(answered, ModelAnswered)
    assert (sent.turn, sent.streamed) == (2, driver in ("stream", "astream"))
    assert (answered.turn, answered.usage, answered.finish_reason) == (2, Usage(30, 2), "stop")
    assert answered.duration >= 0
    if driver in ("stream", "astream"):
        assert answered.first_delta is not None
        assert 0 <= answered.first_delta <= answered.duration
    else:
        assert answered.first_delta is None


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_failed_request_and_the_run_it_ends_are_published(driver):
    bus, seen = watched()
    failure = PromptEvaluationError("overloaded", provider="scripted", status=529)
    with pytest.raises(PromptEvaluationError):
        run(ScriptedAdapter([failure]), make_prompt(), driver, bus=bus)
    assert [type(e) for e in seen] == [
        EvaluationStarted,
        ModelRequestSent,
        ModelRequestFailed,
        EvaluationFailed,
    ]
    failed = seen[2]
    assert isinstance(failed, ModelRequestFailed)
    assert failed.error is failure
    ended = seen[3]
    assert isinstance(ended, EvaluationFailed)
    assert ended.error is failure


def test_a_session_that_records_them_watches_too():
    session = Session()
    session.register_reducer(ModelAnswered, ModelAnswered, lambda kept, e: (*kept, e))
    ScriptedAdapter([text("ok")]).evaluate(make_prompt(), session=session)
    assert len(session.slice(ModelAnswered)) == 1


def test_nobody_watching_builds_none_of_them():
    session = Session()
    bus = EventBus()
    bus.subscribe(ModelSwitchedOnly, lambda e: None)  # a subscriber to something else
    response = ScriptedAdapter([text("ok")]).evaluate(make_prompt(), session=session, bus=bus)
    assert response.text == "ok"
    assert not any(session.records(t) for t in REQUEST_EVENTS)


class ModelSwitchedOnly:
    """A type no run publishes."""
