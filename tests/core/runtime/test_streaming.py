"""Streaming: the same loop as evaluate, its events in order, the same final response, and a
stream that stops early or ends without its final delta."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from entity_tools import make_prompt

from affordance import (
    ConfirmationRequired,
    PromptEvaluationError,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    approve,
)
from affordance.runtime.model.deltas import (
    DeltaError,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    TurnAssembler,
    TurnEnd,
    deltas_of,
)
from affordance.runtime.model.turn import ModelRequest, ProviderTurn, Usage
from affordance.testing import ScriptedAdapter, comparable, text, tool_call, tool_calls

SCRIPT = [
    tool_calls(
        tool_call("lookup", {"entity_id": "a"}, call_id="c1"),
        tool_call("lookup", {"entity_id": "boom"}, call_id="c2"),
        usage=Usage(10, 1),
    ),
    text("Entity a is at https://e/a; b failed.", usage=Usage(20, 2)),
]


def kinds(events):
    return [type(event).__name__ for event in events]


def test_a_streamed_run_ends_with_the_response_evaluate_returns():
    evaluated = ScriptedAdapter(list(SCRIPT)).evaluate(make_prompt())
    with ScriptedAdapter(list(SCRIPT), stream_chunk=5).stream(make_prompt()) as events:
        seen = list(events)

    assert isinstance(seen[-1], RunFinished)
    assert events.response is seen[-1].response
    assert comparable(seen[-1].response) == comparable(evaluated)


def test_events_arrive_in_order_with_text_in_pieces():
    with ScriptedAdapter(list(SCRIPT), stream_chunk=5).stream(make_prompt()) as events:
        seen = list(events)

    assert isinstance(seen[0], RunStarted)
    assert seen[0].prompt_name == "entities"
    assert kinds(seen[1:3]) == ["ToolCallStarted", "ToolCallArgumentsDelta"]
    started = [e for e in seen if isinstance(e, ToolCallStarted)]
    assert [(e.call_id, e.name, e.turn) for e in started] == [
        ("c1", "lookup", 1),
        ("c2", "lookup", 1),
    ]
    arguments = "".join(
        e.text for e in seen if isinstance(e, ToolCallArgumentsDelta) and e.call_id == "c1"
    )
    assert arguments == '{"entity_id": "a"}'
    finished = [e for e in seen if isinstance(e, ToolCallFinished)]
    assert [(e.call_id, e.success) for e in finished] == [("c1", True), ("c2", False)]
    turns = [e for e in seen if isinstance(e, TurnFinished)]
    assert [(e.turn, e.usage, e.finish_reason) for e in turns] == [
        (1, Usage(10, 1), "tool_calls"),
        (2, Usage(20, 2), "stop"),
    ]
    pieces = [e.text for e in seen if isinstance(e, TextDelta)]
    assert len(pieces) > 1
    assert all(len(piece) <= 5 for piece in pieces)
    assert "".join(pieces) == "Entity a is at https://e/a; b failed."
    # tool results come after the turn that asked for them, before the next turn's text
    assert seen.index(finished[0]) > seen.index(turns[0])
    assert seen.index(finished[-1]) < seen.index(turns[1])


def test_a_destructive_call_pauses_the_stream_and_a_stream_resumes_it():
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delete", {"entity_id": "a"}, call_id="d1")), text("Deleted a.")]
    )
    prompt = make_prompt()
    with adapter.stream(prompt) as events:
        first = list(events)
    paused = first[-1].response
    assert [e for e in first if isinstance(e, ConfirmationRequired)] == [
        ConfirmationRequired("d1", "delete", {"entity_id": "a", "limit": 1})
    ]
    assert paused.finish_reason == "confirmation_required"

    with adapter.stream(prompt, session=paused.session, confirmations={"d1": approve()}) as events:
        resumed = list(events)
    assert resumed[0] == RunStarted("entities", paused.run_id, resumed=True)
    finished = [e for e in resumed if isinstance(e, ToolCallFinished)]
    assert [(e.call_id, e.success) for e in finished] == [("d1", True)]
    assert resumed[-1].response.text == "Deleted a."


def test_the_async_stream_ends_with_the_response_aevaluate_returns():
    async def both():
        evaluated = await ScriptedAdapter(list(SCRIPT)).aevaluate(make_prompt())
        async with ScriptedAdapter(list(SCRIPT), stream_chunk=3).astream(make_prompt()) as events:
            seen = [event async for event in events]
        return evaluated, seen

    evaluated, seen = asyncio.run(both())
    assert kinds(seen[:2]) == ["RunStarted", "ToolCallStarted"]
    assert comparable(seen[-1].response) == comparable(evaluated)


class Recording(ScriptedAdapter):
    """Streams a long answer one delta at a time and records whether its stream was closed."""

    def __init__(self, turn: ProviderTurn) -> None:
        super().__init__([turn], stream_chunk=1)
        self.closed = False

    def send_stream(self, request: ModelRequest) -> Iterator:
        try:
            yield from super().send_stream(request)
        finally:
            self.closed = True

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator:
        try:
            async for delta in super().asend_stream(request):
                yield delta
        finally:
            self.closed = True


def test_leaving_the_stream_early_closes_the_provider_stream():
    adapter = Recording(text("a long answer " * 20))
    with adapter.stream(make_prompt()) as events:
        for event in events:
            if isinstance(event, TextDelta):
                break
        assert not adapter.closed
    assert adapter.closed


def test_breaking_out_of_an_async_stream_closes_the_provider_stream():
    adapter = Recording(text("a long answer " * 20))

    async def consume():
        async with adapter.astream(make_prompt()) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    break

    asyncio.run(consume())
    assert adapter.closed


class Truncated(ScriptedAdapter):
    def send_stream(self, request: ModelRequest) -> Iterator:
        yield TextPiece("half an ans")  # and no TurnEnd: the connection dropped


def test_a_stream_without_its_final_delta_is_an_error_not_a_short_answer():
    with (
        pytest.raises(PromptEvaluationError, match="ended before the turn was complete"),
        Truncated().stream(make_prompt()) as events,
    ):
        list(events)


def test_deltas_of_a_turn_assemble_back_into_that_turn():
    turn = ProviderTurn(
        text="Sunny in Paris.",
        tool_calls=(tool_call("lookup", {"entity_id": "x"}, call_id="c9"),),
        hosted_items=({"type": "web_search_call", "id": "ws"},),
        provider_items=({"type": "reasoning", "id": "r"}, {"type": "web_search_call", "id": "w"}),
        usage=Usage(5, 6, 1, 2),
        finish_reason="tool_calls",
        refusal=None,
        response_id="resp_1",
    )
    for chunk in (0, 1, 4):
        assembler = TurnAssembler()
        for delta in deltas_of(turn, chunk=chunk):
            assembler.add(delta)
        assert assembler.turn() == turn


def test_nothing_may_follow_the_final_delta():
    assembler = TurnAssembler()
    assembler.add(TurnEnd())
    with pytest.raises(ValueError, match="after the turn ended"):
        assembler.add(TextPiece("late"))


class OutOfOrder(ScriptedAdapter):
    """A plugin whose deltas make no turn: arguments for a call that never began."""

    def send_stream(self, request: ModelRequest) -> Iterator:
        yield ToolCallArguments(0, '{"entity_id": "x"}')
        yield TurnEnd()

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator:
        for delta in self.send_stream(request):
            yield delta


def test_deltas_that_make_no_turn_end_the_stream_with_a_readable_error():
    with (
        pytest.raises(PromptEvaluationError, match="never began") as raised,
        OutOfOrder().stream(make_prompt()) as events,
    ):
        list(events)
    assert raised.value.phase == "response"

    async def consume() -> None:
        async with OutOfOrder().astream(make_prompt()) as events:
            async for _ in events:
                pass

    with pytest.raises(PromptEvaluationError, match="never began"):
        asyncio.run(consume())


@pytest.mark.parametrize(
    "delta",
    [
        TextPiece(["not", "text"]),  # type: ignore[arg-type]
        ToolCallBegun(0, {"id": 1}, "lookup"),  # type: ignore[arg-type]
        ToolCallBegun(0, "c1", None),  # type: ignore[arg-type]
    ],
)
def test_a_delta_of_the_wrong_type_is_refused(delta: object) -> None:
    with pytest.raises(DeltaError):
        TurnAssembler().add(delta)  # type: ignore[arg-type]


class LabelledPiece(TextPiece):
    """A plugin's own kind of text piece (the drivers translate a subclass, not inline)."""

    __slots__ = ()


class EmptyPieces(ScriptedAdapter):
    """A provider that sends empty text pieces between the real ones, as SSE streams do (an
    opening block with no text yet, a keep-alive delta)."""

    PIECES = (
        TextPiece(""),
        TextPiece("Hi"),
        TextPiece(""),
        LabelledPiece(""),
        LabelledPiece(" there"),
        TextPiece(""),
    )

    def send_stream(self, request: ModelRequest) -> Iterator:
        yield from self.PIECES
        yield TurnEnd()

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator:
        for delta in self.send_stream(request):
            yield delta


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_an_empty_text_piece_makes_no_text_delta(asynchronous: bool) -> None:
    async def aconsume() -> list[object]:
        async with EmptyPieces([]).astream(make_prompt()) as events:
            return [event async for event in events]

    if asynchronous:
        seen = asyncio.run(aconsume())
    else:
        with EmptyPieces([]).stream(make_prompt()) as events:
            seen = list(events)

    assert [event for event in seen if isinstance(event, TextDelta)] == [
        TextDelta("Hi", 1),
        TextDelta(" there", 1),
    ]
    assert seen[-1].response.text == "Hi there"
