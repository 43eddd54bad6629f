"""A request one model fails goes to the next (``FallbackModel``, ``FallbackAdapter``), offline:
which failures switch, what each model is sent, who answered, and the four drivers."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from entity_tools import make_prompt

from affordance import Evaluator, PromptEvaluationError, PromptResponse, RunFinished, Session
from affordance.runtime.loop import FallbackAdapter
from affordance.runtime.model import (
    AssistantMessage,
    Delta,
    FallbackModel,
    ModelRequest,
    ModelSwitch,
    ProviderTurn,
    TextPiece,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    deltas_of,
)
from affordance.runtime.record.events import ModelSwitched
from affordance.runtime.record.session import append

PROMPT = make_prompt()
MODES = ("evaluate", "aevaluate", "stream", "astream")
STREAMED = ("stream", "astream")


def rate_limited(provider: str) -> PromptEvaluationError:
    return PromptEvaluationError("rate limited", provider=provider, status=429, transient=True)


def bad_request(provider: str) -> PromptEvaluationError:
    return PromptEvaluationError("bad request", provider=provider, status=400)


def lookup_call(call_id: str = "c1", *items: Mapping[str, Any]) -> ProviderTurn:
    return ProviderTurn(
        tool_calls=(ToolCall(call_id, "lookup", {"entity_id": "a"}),),
        finish_reason="tool_calls",
        provider_items=items,
        usage=Usage(10, 2),
    )


def answer(text: str) -> ProviderTurn:
    return ProviderTurn(text=text, usage=Usage(20, 4))


@dataclasses.dataclass(frozen=True)
class BreaksMidStream:
    """A streamed step: ``text`` arrives, then ``error``."""

    text: str
    error: PromptEvaluationError


Step = ProviderTurn | BaseException | BreaksMidStream | Callable[[ModelRequest], ProviderTurn]


class Scripted:
    """A model named ``name`` answering from ``steps`` (a turn, an exception to raise, a
    :class:`BreaksMidStream`, or a function of the request), then from ``responder``; what it
    was asked is kept. Streamed, a turn's text comes in 3-character pieces."""

    def __init__(
        self,
        name: str,
        *steps: Step,
        model: str | None = None,
        responder: Callable[[ModelRequest], ProviderTurn] | None = None,
        normalize: Callable[[ProviderTurn], ProviderTurn] | None = None,
    ) -> None:
        self.name = name
        self.model = model
        self._steps: deque[Step] = deque(steps)
        self._responder = responder
        self._normalize = normalize
        self._lock = threading.Lock()
        self.requests: list[ModelRequest] = []
        self.normalized: list[ProviderTurn] = []
        self.parsed: list[Sequence[Mapping[str, Any]]] = []
        self.streams_closed = 0

    def _next(self, request: ModelRequest) -> Step:
        with self._lock:
            self.requests.append(request)
            step = self._steps.popleft() if self._steps else self._responder
        assert step is not None, f"{self.name} has no step left"
        return step

    @staticmethod
    def _turn(step: Step, request: ModelRequest) -> ProviderTurn:
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, ProviderTurn):
            return step
        assert not isinstance(step, BreaksMidStream), "a step for streams only"
        return step(request)

    def send(self, request: ModelRequest) -> ProviderTurn:
        return self._turn(self._next(request), request)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        try:
            step = self._next(request)
            if isinstance(step, BreaksMidStream):
                yield TextPiece(step.text)
                raise step.error
            yield from deltas_of(self._turn(step, request), chunk=3)
        finally:
            self.streams_closed += 1

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        deltas = self.send_stream(request)
        try:
            for delta in deltas:
                yield delta
        finally:
            deltas.close()

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        self.normalized.append(turn)
        return turn if self._normalize is None else self._normalize(turn)

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[Any]
    ) -> Mapping[str, Any]:
        self.parsed.append(items)
        return {}


def run(
    mode: str, runner: Evaluator, **options: Any
) -> PromptResponse[Any]:  # the final response, whichever driver
    if mode == "evaluate":
        return runner.evaluate(PROMPT, **options)
    if mode == "stream":
        with runner.stream(PROMPT, **options) as events:
            last = list(events)[-1]
        assert isinstance(last, RunFinished)
        return last.response

    async def asynchronously() -> PromptResponse[Any]:
        if mode == "aevaluate":
            return await runner.aevaluate(PROMPT, **options)
        async with runner.astream(PROMPT, **options) as events:
            seen = [event async for event in events]
        assert isinstance(seen[-1], RunFinished)
        return seen[-1].response

    return asyncio.run(asynchronously())


def fallback(*models: Scripted, **options: Any) -> FallbackAdapter:
    primary, *others = (Evaluator(model) for model in models)
    return FallbackAdapter(primary, *others, **options)


def a_request() -> ModelRequest:
    """The first request an evaluation of the prompt sends."""
    probe = Scripted("probe", answer("x"))
    Evaluator(probe).evaluate(PROMPT)
    return probe.requests[0]


def switches_session() -> Session:
    session = Session()
    session.register_reducer(ModelSwitched, ModelSwitched, append)
    return session


# -- switching ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_transient_failure_sends_the_same_request_to_the_next_model(mode: str) -> None:
    alpha = Scripted("alpha", lookup_call(), rate_limited("alpha"), model="alpha-1")
    beta = Scripted("beta", answer("done by beta"), model="beta-1")
    session = switches_session()
    response = run(mode, fallback(alpha, beta), session=session)

    assert response.text == "done by beta"
    assert [r.result.success for r in response.tool_results] == [True]
    (sent,) = beta.requests
    assert sent.turn == 2
    assert sent.messages[1:] == alpha.requests[1].messages[1:]  # the same transcript
    assert isinstance(sent.messages[1], AssistantMessage)
    assert sent.messages[1].tool_calls == (ToolCall("c1", "lookup", {"entity_id": "a"}),)
    assert isinstance(sent.messages[2], ToolResultMessage)
    assert sent.messages[2].call_id == "c1"
    assert response.usage_by_provider == {"alpha": Usage(10, 2), "beta": Usage(20, 4)}
    assert response.usage == Usage(30, 6)
    assert session.slice(ModelSwitched) == (
        ModelSwitched(
            PROMPT.name, response.run_id, 2, "alpha", "alpha-1", 429, "rate limited", "beta"
        ),
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_failure_that_is_not_transient_propagates_unchanged_and_switches_nothing(
    mode: str,
) -> None:
    refused = bad_request("alpha")
    alpha = Scripted("alpha", refused)
    beta = Scripted("beta")
    with pytest.raises(PromptEvaluationError) as raised:
        run(mode, fallback(alpha, beta))
    assert raised.value is refused
    assert beta.requests == []


def test_on_decides_which_failures_switch() -> None:
    on_400 = fallback(
        Scripted("alpha", bad_request("alpha")),
        Scripted("beta", answer("beta took the 400")),
        on=lambda error: error.status == 400,
    )
    assert on_400.evaluate(PROMPT).text == "beta took the 400"

    transient = rate_limited("alpha")
    beta = Scripted("beta")
    with pytest.raises(PromptEvaluationError) as raised:
        fallback(Scripted("alpha", transient), beta, on=lambda e: e.status == 400).evaluate(PROMPT)
    assert raised.value is transient
    assert beta.requests == []


@pytest.mark.parametrize("mode", MODES)
def test_when_every_model_fails_one_error_names_each_and_their_failures(mode: str) -> None:
    overloaded = PromptEvaluationError("overloaded", status=503, transient=True)
    lost = PromptEvaluationError("connection lost", transient=True)
    models = (
        Scripted("alpha", rate_limited("alpha"), model="alpha-1"),
        Scripted("beta", overloaded),
        Scripted("gamma", lost, model="gamma-3"),
    )
    with pytest.raises(PromptEvaluationError) as raised:
        run(mode, fallback(*models))
    error = raised.value
    assert error.message == (
        "the request failed on every model: alpha (alpha-1): status 429, rate limited; "
        "beta: status 503, overloaded; gamma (gamma-3): no answer, connection lost"
    )
    assert (error.phase, error.provider, error.transient) == ("request", "fallback", True)
    assert error.__cause__ is lost


def test_the_error_of_every_failure_is_transient_only_when_the_last_one_was() -> None:
    last = PromptEvaluationError("broken", status=500)
    models = (Scripted("alpha", rate_limited("alpha")), Scripted("beta", last))
    with pytest.raises(PromptEvaluationError) as raised:
        fallback(*models).evaluate(PROMPT)
    assert raised.value.transient is False
    assert raised.value.__cause__ is last


def test_a_refused_failure_after_a_switch_ends_the_request_naming_what_was_not_tried() -> None:
    refused = bad_request("beta")
    gamma = Scripted("gamma")
    models = (Scripted("alpha", rate_limited("alpha")), Scripted("beta", refused), gamma)
    with pytest.raises(PromptEvaluationError) as raised:
        fallback(*models).evaluate(PROMPT)
    assert raised.value.message == (
        "the request failed on every model tried: alpha: status 429, rate limited; beta: "
        "status 400, bad request (not tried: gamma; the last failure is not one to switch on)"
    )
    assert raised.value.__cause__ is refused
    assert gamma.requests == []


def test_only_prompt_evaluation_errors_switch() -> None:
    beta = Scripted("beta")
    with pytest.raises(RuntimeError, match="a bug"):
        fallback(Scripted("alpha", RuntimeError("a bug")), beta).evaluate(PROMPT)
    assert beta.requests == []


# -- what each model is sent -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_every_model_but_the_last_is_asked_to_send_once(mode: str) -> None:
    models = (
        Scripted("alpha", rate_limited("alpha")),
        Scripted("beta", rate_limited("beta")),
        Scripted("gamma", answer("gamma")),
    )
    run(mode, fallback(*models))
    assert [[r.retries for r in model.requests] for model in models] == [[False], [False], [True]]


def test_the_last_model_keeps_the_callers_retries_setting() -> None:
    beta = Scripted("beta", rate_limited("beta"), rate_limited("beta"))
    gamma = Scripted("gamma", answer("second"), answer("third"))
    model = FallbackModel(beta, gamma)
    model.send(dataclasses.replace(a_request(), retries=False))
    model.send(a_request())
    assert [r.retries for r in gamma.requests] == [False, True]
    assert [r.retries for r in beta.requests] == [False, False]


@pytest.mark.parametrize("mode", MODES)
def test_other_providers_items_are_left_out_and_a_models_own_kept(mode: str) -> None:
    own = {"type": "reasoning", "id": "alpha-thought"}
    theirs = {"type": "thinking", "signature": "beta-signature"}
    alpha = Scripted("alpha", lookup_call("c1", own), rate_limited("alpha"), answer("alpha again"))
    beta = Scripted("beta", lookup_call("c2", theirs))
    response = run(mode, fallback(alpha, beta))
    assert response.text == "alpha again"

    (to_beta,) = beta.requests  # turn 2: alpha's turn 1 without its reasoning item
    first = to_beta.messages[1]
    assert isinstance(first, AssistantMessage)
    assert (first.provider_items, first.provider) == ((), "alpha")
    assert first.tool_calls == (ToolCall("c1", "lookup", {"entity_id": "a"}),)

    to_alpha = alpha.requests[2]  # turn 3: alpha's own items kept, beta's left out
    mine, yours = (m for m in to_alpha.messages if isinstance(m, AssistantMessage))
    assert (mine.provider_items, mine.provider) == ((own,), "alpha")
    assert (yours.provider_items, yours.provider) == ((), "beta")
    assert yours.tool_calls == (ToolCall("c2", "lookup", {"entity_id": "a"}),)
    # the run's own transcript keeps every item, with who wrote it
    kept = [m for m in response.messages if isinstance(m, AssistantMessage) and m.provider_items]
    assert [(m.provider, m.provider_items) for m in kept] == [
        ("alpha", (own,)),
        ("beta", (theirs,)),
    ]


def test_a_transcript_with_no_foreign_items_is_sent_as_it_is() -> None:
    alpha = Scripted("alpha", lookup_call("c1", {"type": "reasoning"}), answer("done"))
    fallback(alpha, Scripted("beta")).evaluate(PROMPT)
    assert alpha.requests[1].messages[1].provider_items == ({"type": "reasoning"},)


# -- streams -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", STREAMED)
def test_a_stream_switches_when_it_fails_before_its_first_delta(mode: str) -> None:
    alpha = Scripted("alpha", rate_limited("alpha"), model="alpha-1")
    beta = Scripted("beta", answer("streamed by beta"), model="beta-1")
    session = switches_session()
    response = run(mode, fallback(alpha, beta), session=session)
    assert response.text == "streamed by beta"
    assert response.usage_by_provider == {"beta": Usage(20, 4)}
    assert [e.failed_provider for e in session.slice(ModelSwitched)] == ["alpha"]
    assert (alpha.streams_closed, beta.streams_closed) == (1, 1)


@pytest.mark.parametrize("mode", STREAMED)
def test_a_stream_that_fails_after_its_first_delta_does_not_switch(mode: str) -> None:
    late = rate_limited("alpha")
    alpha = Scripted("alpha", BreaksMidStream("Half an ans", late))
    beta = Scripted("beta")
    with pytest.raises(PromptEvaluationError) as raised:
        run(mode, fallback(alpha, beta))
    assert raised.value is late
    assert beta.requests == []
    assert alpha.streams_closed == 1


def test_leaving_a_stream_early_closes_the_models_stream() -> None:
    alpha = Scripted("alpha", rate_limited("alpha"))
    beta = Scripted("beta", answer("a long answer in pieces"))
    deltas = FallbackModel(alpha, beta).send_stream(a_request())
    assert next(deltas) == TextPiece("a l")
    deltas.close()
    assert beta.streams_closed == 1


def test_leaving_an_async_stream_early_closes_the_models_stream() -> None:
    beta = Scripted("beta", answer("a long answer in pieces"))
    request = a_request()

    async def first_piece() -> Delta:
        deltas = FallbackModel(Scripted("alpha", rate_limited("alpha")), beta).asend_stream(request)
        piece = await anext(deltas)
        await deltas.aclose()
        return piece

    assert asyncio.run(first_piece()) == TextPiece("a l")
    assert beta.streams_closed == 1


# -- who answered --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_the_model_that_answered_normalizes_the_turn(mode: str) -> None:
    alpha = Scripted("alpha", rate_limited("alpha"))
    beta = Scripted(
        "beta", answer("quiet"), normalize=lambda t: dataclasses.replace(t, text=t.text.upper())
    )
    response = run(mode, fallback(alpha, beta))
    assert response.text == "QUIET"
    assert alpha.normalized == []
    (seen,) = beta.normalized
    assert (seen.provider, seen.switches[0].provider) == ("beta", "alpha")
    assert seen.provider_items == ()  # a stream's record of who answered is gone


def test_a_turn_says_who_answered_and_which_models_failed_first() -> None:
    model = FallbackModel(
        Scripted("alpha", rate_limited("alpha"), model="alpha-1"),
        Scripted("beta", PromptEvaluationError("down", transient=True)),
        Scripted("gamma", answer("ok"), model="gamma-3"),
    )
    turn = model.send(a_request())
    assert (turn.provider, turn.model, turn.text) == ("gamma", "gamma-3", "ok")
    assert turn.switches == (
        ModelSwitch("alpha", "alpha-1", 429, "rate limited"),
        ModelSwitch("beta", None, None, "down"),
    )


def test_the_model_name_is_the_models_own_or_its_request_settings() -> None:
    class Settings:
        model = "wire-9"

    wired = Scripted("wired", answer("ok"))
    wired.settings = Settings()
    assert FallbackModel(wired).send(a_request()).model == "wire-9"


@pytest.mark.parametrize("mode", STREAMED)
def test_a_streamed_turn_of_two_same_named_models_is_read_by_the_first_of_them(mode: str) -> None:
    """A streamed turn says who answered by provider and model name only (its ``TurnEnd``):
    of two models alike in both — OpenAI's Responses and Chat on one model — the first reads
    it. Their readings differ at most in wire details; the spec says so."""
    responses = Scripted("openai", rate_limited("openai"), model="gpt")
    chat = Scripted("openai", ProviderTurn(text="quiet"), model="gpt")
    response = run(mode, fallback(responses, chat))
    assert response.text == "quiet"
    assert (len(responses.normalized), len(chat.normalized)) == (1, 0)


def test_hosted_outputs_are_read_by_the_model_that_answered() -> None:
    item = {"type": "web_search_call", "id": "ws_1"}
    alpha = Scripted("alpha", rate_limited("alpha"))
    beta = Scripted("beta", ProviderTurn(text="found", hosted_items=(item,)))
    model = FallbackModel(alpha, beta)
    turn = model.send(a_request())
    assert model.answered(turn.hosted_items) == 1
    model.parse_hosted_outputs(turn.hosted_items, ())
    assert (alpha.parsed, beta.parsed) == ([], [(item,)])
    model.parse_hosted_outputs((item,), ())  # no record of who answered: the first model
    assert alpha.parsed == [(item,)]


@pytest.mark.parametrize("mode", ["evaluate", "aevaluate"])  # streamed: see the next test
def test_two_models_of_one_provider_and_model_are_told_apart_by_their_place(mode: str) -> None:
    item = {"type": "web_search_call", "id": "ws_1"}
    responses = Scripted("openai", rate_limited("openai"), model="gpt")
    chat = Scripted(
        "openai",
        ProviderTurn(text="quiet", hosted_items=(item,)),
        model="gpt",
        normalize=lambda t: dataclasses.replace(t, text=t.text.upper()),
    )
    assert run(mode, fallback(responses, chat)).text == "QUIET"
    assert (len(responses.normalized), len(chat.normalized)) == (0, 1)

    chat = Scripted("openai", ProviderTurn(text="quiet", hosted_items=(item,)), model="gpt")
    model = FallbackModel(Scripted("openai", rate_limited("openai"), model="gpt"), chat)
    turn = model.send(a_request())
    model.parse_hosted_outputs(turn.hosted_items, ())
    assert (model.answered(turn.hosted_items), chat.parsed) == (1, [(item,)])


def test_hosted_approvals_are_read_by_the_runner_whose_model_answered() -> None:
    class Runner(Evaluator):
        def hosted_approvals(self, items: Any, hosted_tools: Any) -> tuple[Any, ...]:
            asked.append(self)
            return ()

    asked: list[Evaluator] = []
    primary = Runner(Scripted("alpha", rate_limited("alpha")))
    other = Runner(Scripted("beta", ProviderTurn(text="x", hosted_items=({"type": "mcp"},))))
    adapter = FallbackAdapter(primary, other)
    turn = adapter.send(a_request())
    adapter.hosted_approvals(turn.hosted_items, ())
    assert asked == [other]


# -- the adapter ------------------------------------------------------------------------------


def test_the_adapter_takes_the_primarys_loop_options_unless_given() -> None:
    primary = Evaluator(Scripted("alpha"), max_turns=3, tool_choice="required")
    other = Evaluator(Scripted("beta"), max_turns=9)
    adapter = FallbackAdapter(primary, other)
    assert (adapter.max_turns, adapter.tool_choice, adapter.executor) == (
        3,
        "required",
        primary.executor,
    )
    assert FallbackAdapter(primary, other, max_turns=5).max_turns == 5
    assert adapter.name == adapter.connection.name == "fallback"
    assert adapter.connection.models == (primary.connection, other.connection)
    with pytest.raises(TypeError, match="unknown option"):
        FallbackAdapter(primary, other, retries=3)
    with pytest.raises(TypeError, match="runners"):
        FallbackAdapter(primary, Scripted("beta"))


def test_a_fallback_model_refuses_what_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="at least one model"):
        FallbackModel()
    with pytest.raises(TypeError, match="list its models in this one"):
        FallbackModel(FallbackModel(Scripted("alpha")))
    with pytest.raises(TypeError, match="is not a Model"):
        FallbackModel(object())
    with pytest.raises(TypeError, match="callable"):
        FallbackModel(Scripted("alpha"), on=True)


def test_each_switch_is_one_warning_holding_metadata_only(content_free_logs: Any) -> None:
    marker = content_free_logs.marker
    models = (
        Scripted("alpha", PromptEvaluationError(f"limited {marker}", status=429, transient=True)),
        Scripted("beta", rate_limited("beta")),
        Scripted("gamma", answer("ok")),
    )
    fallback(*models).evaluate(PROMPT, messages=[UserMessage(f"secret {marker}")])
    warnings = [r for r in content_free_logs.records if r.name == "affordance.fallback"]
    assert [r.levelno for r in warnings] == [logging.WARNING, logging.WARNING]
    assert [
        (r.affordance_provider, r.affordance_status, r.affordance_next_provider) for r in warnings
    ] == [
        ("alpha", 429, "beta"),
        ("beta", 429, "gamma"),
    ]


# -- concurrency ------------------------------------------------------------------------------


def concurrent_models() -> tuple[Scripted, Scripted]:
    """Alpha fails the runs whose caller message is odd; each answer names the run's message."""

    def alpha(request: ModelRequest) -> ProviderTurn:
        said = request.messages[0].text
        if int(said.split()[-1]) % 2:
            raise rate_limited("alpha")
        return answer(f"alpha: {said}")

    def beta(request: ModelRequest) -> ProviderTurn:
        return answer(f"beta: {request.messages[0].text}")

    return Scripted("alpha", responder=alpha), Scripted("beta", responder=beta)


def check_concurrent(responses: Sequence[PromptResponse[Any]]) -> None:
    for number, response in enumerate(responses):
        who = "beta" if number % 2 else "alpha"
        assert response.text == f"{who}: run {number}"
        assert set(response.usage_by_provider) == {who}


def test_one_adapter_serves_concurrent_runs_in_threads() -> None:
    adapter = fallback(*concurrent_models())
    with ThreadPoolExecutor(8) as pool:
        responses = list(
            pool.map(
                lambda n: adapter.evaluate(PROMPT, messages=[UserMessage(f"run {n}")]), range(40)
            )
        )
    check_concurrent(responses)


def test_one_adapter_serves_concurrent_runs_on_one_event_loop() -> None:
    adapter = fallback(*concurrent_models())

    async def all_runs() -> list[PromptResponse[Any]]:
        async def one(n: int) -> PromptResponse[Any]:
            async with adapter.astream(PROMPT, messages=[UserMessage(f"run {n}")]) as events:
                seen = [event async for event in events]
            assert isinstance(seen[-1], RunFinished)
            return seen[-1].response

        return list(await asyncio.gather(*(one(n) for n in range(40))))

    check_concurrent(asyncio.run(all_runs()))
