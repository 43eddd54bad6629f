"""A streamed Messages answer read over the real SDK and HTTP: how it must end (``message_stop``
after a stop reason), and a tool's input rebuilt from its ``input_json_delta`` pieces exactly as
sent — whitespace inside them kept, and only a JSON object taken as the arguments."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from loopback import (
    MESSAGES_PATH,
    RawJson,
    SseReply,
    message_stream,
    message_stream_events,
    message_text,
    message_tool_uses,
)

from affordance import PromptEvaluationError, PromptTemplate
from affordance.runtime.record.stream_events import ToolCallArgumentsDelta
from affordance_anthropic import AnthropicAdapter

MODES = ("evaluate", "aevaluate", "stream", "astream")
STREAMED = ("stream", "astream")


# -- the end of a stream ------------------------------------------------------------------------


def without_stop_reason(change: str) -> SseReply:
    """A whole text answer whose ``message_delta`` lost its stop reason (``change``: the key
    left out, set to null, or the whole event left out); ``message_stop`` still comes."""
    events = list(message_stream_events(message_text("Sunny."), text_chunk=3))
    index = next(i for i, event in enumerate(events) if event.event == "message_delta")
    if change == "no message_delta":
        del events[index]
    else:
        data = events[index].data
        delta = {k: v for k, v in data["delta"].items() if k != "stop_reason"}
        if change == "null":
            delta["stop_reason"] = None
        events[index] = dataclasses.replace(events[index], data={**data, "delta": delta})
    assert events[-1].event == "message_stop"
    return SseReply(events, headers={"request-id": "req_nostop"})


@pytest.mark.parametrize("mode", STREAMED)
@pytest.mark.parametrize("change", ["missing", "null", "no message_delta"])
def test_message_stop_without_a_stop_reason_is_an_error_not_an_answer(
    loopback: Any, prompt: PromptTemplate[Any], mode: str, change: str
) -> None:
    loopback.server.script(MESSAGES_PATH, without_stop_reason(change))

    with pytest.raises(
        PromptEvaluationError, match="the stream ended without a stop reason"
    ) as raised:
        loopback.run(mode, prompt)

    error = raised.value
    assert (error.provider, error.phase, error.request_id) == (
        "anthropic",
        "response",
        "req_nostop",
    )
    assert len(loopback.server.requests) == 1


# -- a tool's input, from its pieces ------------------------------------------------------------

SPACED = '{"city": "New York", "unit": "c "}'
"""Input whose string values hold spaces: every piece of it must be kept as sent."""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("json_chunk", [1, 14], ids=["one-char-pieces", "cut-after-a-space"])
def test_input_pieces_are_joined_verbatim_spaces_inside_strings_kept(
    loopback: Any, prompt: PromptTemplate[Any], calls: Any, mode: str, json_chunk: int
) -> None:
    # one-char pieces include pieces that are a lone space; at 14, '{"city": "New ' ends in one
    replies = loopback.replies(
        mode,
        message_tool_uses([("toolu_1", "get_weather", RawJson(SPACED))]),
        message_text("Sunny in New York."),
        json_chunk=json_chunk,
    )
    loopback.server.script(MESSAGES_PATH, *replies)

    answer = loopback.run(mode, prompt)

    assert answer.text == "Sunny in New York."
    assert calls.seen == [("get_weather", "New York", "c ")]
    (echoed,) = loopback.bodies()[1]["messages"][1]["content"]
    assert echoed["input"] == {"city": "New York", "unit": "c "}
    loopback.server.assert_script_consumed()


def test_the_argument_pieces_a_consumer_sees_are_the_pieces_sent(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.server.script(
        MESSAGES_PATH,
        message_stream(
            message_tool_uses([("toolu_1", "get_weather", RawJson(SPACED))]), json_chunk=1
        ),
        message_stream(message_text("Sunny.")),
    )
    adapter = AnthropicAdapter("claude-test", client=loopback.sync())

    with adapter.stream(prompt) as events:
        pieces = [e.text for e in events if isinstance(e, ToolCallArgumentsDelta)]

    assert pieces == list(SPACED)


NOT_AN_OBJECT = {"[1, 2]": "list", "7": "int", '"Paris"': "str"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("raw", list(NOT_AN_OBJECT))
def test_input_that_is_json_but_not_an_object_is_a_failed_call_the_run_survives(
    loopback: Any, prompt: PromptTemplate[Any], calls: Any, mode: str, raw: str
) -> None:
    loopback.script(
        mode,
        message_tool_uses([("toolu_1", "get_weather", RawJson(raw))]),
        message_text("Sorry."),
    )

    answer = loopback.run(mode, prompt)

    expected = f"Arguments for 'get_weather' must be a JSON object, got {NOT_AN_OBJECT[raw]}."
    assert answer.text == "Sorry."
    assert calls.seen == []
    assert [r.result.message for r in answer.tool_results] == [expected]
    follow_up = loopback.bodies()[1]["messages"]
    assert follow_up[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": expected, "is_error": True}
    ]
    if mode in STREAMED:
        assert follow_up[1]["content"][0]["input"] == {}  # echoed as an object
