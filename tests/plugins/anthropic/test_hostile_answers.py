"""Whatever the server answers — a message or a stream event with any one field missing or of
any JSON type — the run ends with an answer or a ``PromptEvaluationError``, over the real SDK
and HTTP; never another exception."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's plugin envs run without it

from hostile_json import HOSTILE, ends_readably, one_event_changed, one_place_changed
from hypothesis import given
from hypothesis import strategies as st
from loopback import MESSAGES_PATH, message_stream, message_text, message_tool_uses

from affordance import PromptTemplate
from affordance_anthropic import AnthropicAdapter

ANSWERS = [
    message_text("Sunny."),
    message_tool_uses([("toolu_1", "get_weather", {"city": "Paris"})], text="Checking."),
]


@HOSTILE
@given(data=st.data())
def test_a_hostile_message_is_an_answer_or_a_readable_error(
    loopback: Any, prompt: PromptTemplate[Any], data: Any
) -> None:
    answer = data.draw(st.sampled_from(ANSWERS))
    body = data.draw(one_place_changed(answer.body))
    loopback.server.set_responder(
        lambda request: dataclasses.replace(answer, body=body), path=MESSAGES_PATH
    )

    ends_readably(AnthropicAdapter("claude-test", client=loopback.sync()), prompt, streamed=False)


@HOSTILE
@given(data=st.data())
def test_a_hostile_stream_event_is_an_answer_or_a_readable_error(
    loopback: Any, prompt: PromptTemplate[Any], data: Any
) -> None:
    stream = message_stream(data.draw(st.sampled_from(ANSWERS)), text_chunk=3, json_chunk=5)
    reply = data.draw(one_event_changed(stream))
    loopback.server.set_responder(lambda request: reply, path=MESSAGES_PATH)

    ends_readably(AnthropicAdapter("claude-test", client=loopback.sync()), prompt, streamed=True)
