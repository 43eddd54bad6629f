"""``MessagesReply.whole_block``: a whole answer's content block brings the deltas its
``content_block_start`` and ``content_block_stop`` bring in a stream, with nothing in between,
and never changes the block it reads (the answer's own JSON is echoed as it came)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from affordance.adapters import UnusableResponseError, turn_from_deltas
from affordance.runtime.model.deltas import Delta, HostedActivity, TurnEnd
from affordance_anthropic._reply import MessagesReply

BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "Sunny."},
    {"type": "text", "text": ""},
    {"type": "text", "text": "cited", "citations": [{"type": "web_search_result_location"}]},
    {"type": "thinking", "thinking": "hm", "signature": "sig"},
    {"type": "thinking", "thinking": None, "input": {"odd": 1}},
    {"type": "redacted_thinking", "data": "xyz"},
    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"city": "Paris"}},
    {"type": "tool_use", "id": "t2", "name": "lookup", "input": "not an object"},
    {"type": "tool_use", "id": "t3", "name": "lookup", "input": None},
    {"type": "tool_use", "id": "t4", "name": "lookup"},
    {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
    {"type": "mcp_tool_use", "id": "m1", "name": "m", "input": [1, 2]},
    {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
    {"type": "something_new", "value": 1},
]


def streamed(index: int, block: dict[str, Any], *, hosted: bool) -> list[Delta]:
    """The deltas the block's start and stop bring in a stream, with no delta in between."""
    reply = MessagesReply(hosted=hosted)
    return [*reply.block_start(index, block), *reply.block_stop(index, "content_block_stop")]


def turn_of(deltas: list[Delta]) -> Any:
    return turn_from_deltas([*deltas, TurnEnd()])


@pytest.mark.parametrize("hosted", [False, True])
@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: str(block["type"]))
def test_a_whole_block_brings_what_its_start_and_stop_bring(
    block: dict[str, Any], hosted: bool
) -> None:
    whole = MessagesReply(hosted=hosted).whole_block(2, block)
    stream = streamed(2, copy.deepcopy(block), hosted=hosted)

    assert turn_of(whole) == turn_of(stream)
    # what a stream consumer would see, in the same order
    assert [type(delta) for delta in whole] == [type(delta) for delta in stream]
    assert [d for d in whole if isinstance(d, HostedActivity)] == [
        d for d in stream if isinstance(d, HostedActivity)
    ]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: str(block["type"]))
def test_a_whole_block_is_never_changed(block: dict[str, Any]) -> None:
    before = json.dumps(block, sort_keys=True)

    MessagesReply(hosted=True).whole_block(0, block)

    assert json.dumps(block, sort_keys=True) == before


def test_a_call_whose_input_is_no_object_is_echoed_with_an_empty_one() -> None:
    block = {"type": "tool_use", "id": "t", "name": "lookup", "input": "oops"}

    turn = turn_of(MessagesReply(hosted=False).whole_block(0, block))

    assert turn.provider_items == ({"type": "tool_use", "id": "t", "name": "lookup", "input": {}},)
    assert turn.tool_calls[0].arguments == '"oops"'
    assert block["input"] == "oops"


def test_a_whole_block_is_refused_as_its_start_would_be() -> None:
    with pytest.raises(UnusableResponseError, match="a text block has no text"):
        MessagesReply(hosted=False).whole_block(0, {"type": "text"})
    with pytest.raises(UnusableResponseError, match="lacks its id or name"):
        MessagesReply(hosted=False).whole_block(0, {"type": "tool_use", "id": 1, "name": "x"})
