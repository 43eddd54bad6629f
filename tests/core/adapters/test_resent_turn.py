"""``ResentTurn`` (``affordance.adapters.resent_turn``): an assistant turn resent as its wire
format wants it — its own items verbatim and in order, another provider's left out, and the
text and calls none of its items carries rebuilt in the format's shapes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance.adapters import AssistantMessage, ResentTurn, ToolCall


def call_item(call: ToolCall) -> Mapping[str, Any]:
    return {"type": "call", "call_id": call.id, "name": call.name}


TURN = ResentTurn(
    types=frozenset({"message", "call", "thought"}),
    suffix="_search",
    text_type="message",
    call_type="call",
    call_id="call_id",
    text=lambda text: {"type": "message", "text": text},
    call=call_item,
)
FIRST = ToolCall("c1", "weather", '{"city": "Paris"}')
SECOND = ToolCall("c2", "weather", '{"city": "Oslo"}')


def test_own_items_are_resent_verbatim_in_order_and_another_providers_left_out() -> None:
    thought = {"type": "thought", "signature": "s"}
    search = {"type": "web_search", "id": "ws"}
    said = {"type": "message", "text": "Looking."}
    call = {"type": "call", "call_id": "c1", "name": "weather"}
    foreign = {"type": "tool_use", "id": "c1"}
    message = AssistantMessage(
        "Looking.", (FIRST,), provider_items=(thought, foreign, search, said, call)
    )

    items = TURN.items(message)

    assert items == [thought, search, said, call]
    assert all(a is b for a, b in zip(items, [thought, search, said, call], strict=True))


def test_a_turn_without_own_items_is_rebuilt_from_its_text_and_calls() -> None:
    message = AssistantMessage("Let me check.", (FIRST, SECOND))

    assert TURN.items(message) == [
        {"type": "message", "text": "Let me check."},
        call_item(FIRST),
        call_item(SECOND),
    ]


def test_only_what_the_items_lack_is_rebuilt_and_the_text_goes_first_when_asked() -> None:
    echoed = {"type": "call", "call_id": "c1", "name": "weather"}
    message = AssistantMessage("Checking.", (FIRST, SECOND), provider_items=(echoed,))
    text_first = ResentTurn(
        types=TURN.types,
        suffix=TURN.suffix,
        text_type=TURN.text_type,
        call_type=TURN.call_type,
        call_id=TURN.call_id,
        text=TURN.text,
        call=TURN.call,
        text_first=True,
    )

    assert TURN.items(message) == [
        echoed,
        {"type": "message", "text": "Checking."},
        call_item(SECOND),
    ]
    assert text_first.items(message) == [
        {"type": "message", "text": "Checking."},
        echoed,
        call_item(SECOND),
    ]


def test_an_item_is_the_formats_own_by_its_type_only() -> None:
    assert TURN.owns({"type": "thought"})
    assert TURN.owns({"type": "file_search"})
    assert not TURN.owns({"type": "tool_use"})
    assert not TURN.owns({"role": "assistant", "content": "no type"})
    assert not TURN.owns({"type": ["message"]})


def test_a_turn_with_neither_text_nor_calls_nor_items_resends_nothing() -> None:
    assert TURN.items(AssistantMessage(None)) == []
    assert TURN.items(AssistantMessage("")) == []
