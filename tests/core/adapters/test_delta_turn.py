"""``turn_from_deltas`` (``affordance.adapters.delta_turn``): a whole answer read by a stream
translator is the turn its deltas make, and deltas that make none are an unusable body."""

from __future__ import annotations

import pytest

from affordance.adapters import (
    ProviderItem,
    RefusalPiece,
    TextPiece,
    ToolCallBegun,
    ToolCallReady,
    TurnEnd,
    UnusableResponseError,
    Usage,
    turn_from_deltas,
)
from affordance.runtime.model.deltas import deltas_of


def test_the_deltas_of_an_answer_make_its_turn() -> None:
    part = {"text": "Hi"}
    turn = turn_from_deltas(
        [
            TextPiece("Hi"),
            ProviderItem(part),
            ToolCallBegun(0, "c1", "lookup"),
            ToolCallReady(0, {"q": "x"}),
            ProviderItem({"hosted": 1}, echo=False, hosted=True),
            TurnEnd(Usage(input_tokens=3), "tool_calls", "r1"),
        ]
    )

    assert turn.text == "Hi"
    assert turn.provider_items == (part,)
    assert turn.hosted_items == ({"hosted": 1},)
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [("c1", "lookup", {"q": "x"})]
    assert (turn.usage.input_tokens, turn.finish_reason, turn.response_id) == (
        3,
        "tool_calls",
        "r1",
    )


def test_a_turn_read_back_from_its_deltas_is_the_same_turn() -> None:
    turn = turn_from_deltas([RefusalPiece("no."), TurnEnd(Usage(), "content_filter", None)])

    assert turn_from_deltas(deltas_of(turn)) == turn
    assert (turn.text, turn.refusal) == (None, "no.")


def test_deltas_without_an_end_are_an_unusable_answer() -> None:
    with pytest.raises(UnusableResponseError, match="no end"):
        turn_from_deltas([TextPiece("Hi")])


def test_deltas_out_of_order_are_an_unusable_answer() -> None:
    with pytest.raises(UnusableResponseError, match="never began"):
        turn_from_deltas([ToolCallReady(0, "{}"), TurnEnd()])
