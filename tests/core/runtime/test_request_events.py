"""A run's requests to its model as events, for tracing and metrics: one ``ModelRequestSent``
and one ``ModelAnswered`` (or ``ModelRequestFailed``) per request, timed, the first piece of a
stream timed too, ``EvaluationStarted`` and ``EvaluationFailed`` around the run — on every entry
point — and nothing built when nobody watches."""

from __future__ import annotations

import contextvars

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
    Tool,
    ToolResult,
)
from affordance.adapters import ModelRequest, ProviderTurn, Usage
from affordance.runtime.model.connection import endpoint_of
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


MARK: contextvars.ContextVar[int | None] = contextvars.ContextVar("mark", default=None)
"""What a subscriber of ``ModelRequestSent`` sets, as a tracer makes its span current."""


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_request_is_sent_in_the_context_its_sent_event_was_published_in(driver):
    bus = EventBus()
    bus.subscribe(ModelRequestSent, lambda event: MARK.set(event.turn))
    at_send: list[int | None] = []
    in_handler: list[int | None] = []

    def responder(request: ModelRequest) -> ProviderTurn:
        at_send.append(MARK.get())
        if request.turn == 1:
            return tool_calls(tool_call("peek", {}))
        return ProviderTurn(text="ok", response_model="scripted-2026-11")

    def peek(params: None) -> ToolResult[str]:
        in_handler.append(MARK.get())
        return ToolResult.ok("seen")

    prompt = make_prompt(Tool[None, str](name="peek", description="Peek.", handler=peek))
    response, _ = run(ScriptedAdapter(responder=responder), prompt, driver, bus=bus)
    assert response.text == "ok"
    assert at_send == [1, 2]  # each request saw its own turn's mark
    assert in_handler == [None]  # the tool call between them saw none
    assert MARK.get() is None  # nor does the caller, after the run


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_answer_names_the_model_the_response_named(driver):
    bus, seen = watched()
    adapter = ScriptedAdapter([ProviderTurn(text="ok", response_model="scripted-2026-11")])
    run(adapter, make_prompt(), driver, bus=bus)
    sent = next(event for event in seen if isinstance(event, ModelRequestSent))
    answered = next(event for event in seen if isinstance(event, ModelAnswered))
    assert answered.response_model == "scripted-2026-11"
    assert sent.server is None  # the scripted model names no server


class Connection:
    def __init__(self, endpoint: object) -> None:
        self._endpoint = endpoint

    def endpoint(self, *, asynchronous: bool) -> object:
        if isinstance(self._endpoint, BaseException):
            raise self._endpoint
        return self._endpoint


@pytest.mark.parametrize(
    ("connection", "expected"),
    [
        (Connection("https://api.example.com/v1"), "https://api.example.com/v1"),
        (Connection(RuntimeError("no API key")), None),
        (Connection(42), None),
        (Connection(""), None),
        (object(), None),
    ],
    ids=["url", "raises", "not-a-string", "empty", "no-endpoint"],
)
def test_the_server_a_connection_names_is_read_without_failing_the_run(connection, expected):
    assert endpoint_of(connection, asynchronous=False) == expected
