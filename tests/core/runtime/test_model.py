"""The runner holds a model: ``Evaluator(connection)`` runs any ``Model``, the four ways, with
the loop's options its own; a subclass that is its own model keeps working as it always did."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

import pytest
from entity_tools import make_prompt

from affordance import Evaluator, PromptEvaluationError, RunFinished, TextDelta
from affordance.adapters import Delta, ModelRequest, ProviderTurn, TextPiece, TurnEnd
from affordance.runtime import Model, ToolExecutor
from affordance.runtime.model.messages import ToolCall

PROMPT = make_prompt()


class Listed:
    """A model answering from a list of turns (streamed: their text, word by word); what it
    was asked is kept. Not an Evaluator."""

    name = "listed"

    def __init__(self, *turns: ProviderTurn) -> None:
        self.turns = list(turns)
        self.requests: list[ModelRequest] = []
        self.normalized = 0

    def send(self, request: ModelRequest) -> ProviderTurn:
        self.requests.append(request)
        return self.turns.pop(0)

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        return self.send(request)

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        turn = self.send(request)
        for index, word in enumerate((turn.text or "").split(" ")):
            yield TextPiece(word if index == 0 else f" {word}")
        yield TurnEnd(finish_reason=turn.finish_reason)

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        for delta in self.send_stream(request):
            yield delta

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        self.normalized += 1
        return turn

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[Any]
    ) -> Mapping[str, Any]:
        return {}


def lookup_then_answer() -> Listed:
    return Listed(
        ProviderTurn(
            tool_calls=(ToolCall("c1", "lookup", {"entity_id": "a"}),), finish_reason="tool_calls"
        ),
        ProviderTurn(text="all done"),
    )


def test_a_plain_evaluator_runs_the_model_it_holds() -> None:
    model = lookup_then_answer()
    evaluator = Evaluator(model, max_turns=4)
    assert evaluator.connection is model
    response = evaluator.evaluate(PROMPT)
    assert response.text == "all done"
    assert [r.result.success for r in response.tool_results] == [True]
    assert [r.turn for r in model.requests] == [1, 2]
    assert model.normalized == 2


def test_the_held_model_is_asked_the_four_ways() -> None:
    async def asynchronously() -> list[str]:
        texts = [(await Evaluator(lookup_then_answer()).aevaluate(PROMPT)).text or ""]
        async with Evaluator(Listed(ProviderTurn(text="all done"))).astream(PROMPT) as events:
            seen = [event async for event in events]
        assert isinstance(seen[-1], RunFinished)
        texts.append(seen[-1].response.text or "")
        return texts

    with Evaluator(Listed(ProviderTurn(text="all done"))).stream(PROMPT) as events:
        seen = list(events)
    pieces = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert isinstance(seen[-1], RunFinished)
    assert pieces == seen[-1].response.text == "all done"
    assert asyncio.run(asynchronously()) == ["all done", "all done"]


def test_the_loop_options_are_the_runners() -> None:
    model = Listed(ProviderTurn(text="no tools"))
    executor = ToolExecutor()
    evaluator = Evaluator(model, executor=executor, tool_choice="none", parallel_tool_calls=False)
    evaluator.evaluate(PROMPT)
    [request] = model.requests
    assert (request.tool_choice, request.parallel_tool_calls) == ("none", False)
    assert evaluator.executor is executor


def test_errors_name_the_held_models_provider() -> None:
    twice = (ToolCall("same", "lookup", {"entity_id": "a"}),) * 2
    model = Listed(ProviderTurn(tool_calls=twice, finish_reason="tool_calls"))
    with pytest.raises(PromptEvaluationError, match="more than one tool call") as raised:
        Evaluator(model).evaluate(PROMPT)
    assert raised.value.provider == "listed"


def test_an_evaluator_with_neither_a_model_nor_sends_of_its_own_is_refused() -> None:
    class Half(Evaluator):
        def send(self, request: ModelRequest) -> ProviderTurn:
            return ProviderTurn(text="sync only")

    with pytest.raises(TypeError, match=r"Evaluator has no model: pass its connection"):
        Evaluator()
    with pytest.raises(TypeError, match=r"Half has no model.*implement asend"):
        Half()


def test_a_model_is_a_protocol_any_class_meets() -> None:
    model: Model = lookup_then_answer()  # type-checked: Listed is no subclass of anything
    assert not isinstance(model, Evaluator)
