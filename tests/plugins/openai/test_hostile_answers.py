"""Whatever an OpenAI-compatible server answers — a completion, a response or a stream event
with any one field missing or of any JSON type — the run ends with an answer or a
``PromptEvaluationError``, over the real SDK and HTTP; never another exception."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's plugin envs run without it

from hostile_json import HOSTILE, ends_readably, one_event_changed, one_place_changed
from hypothesis import given
from hypothesis import strategies as st
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    SseReply,
    chat_stream,
    chat_text,
    chat_tool_calls,
    response_function_calls,
    response_text,
    responses_stream,
)

from affordance import PromptTemplate
from affordance_openai import OpenAIAdapter

CALL = [("call_1", "get_weather", {"city": "Paris"})]
ANSWERS = {
    "chat": (CHAT_COMPLETIONS_PATH, [chat_text("Sunny."), chat_tool_calls(CALL, content="Hm")]),
    "responses": (RESPONSES_PATH, [response_text("Sunny."), response_function_calls(CALL)]),
}


@pytest.mark.parametrize("api", ["chat", "responses"])
@HOSTILE
@given(data=st.data())
def test_a_hostile_answer_is_an_answer_or_a_readable_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str, data: Any
) -> None:
    path, answers = ANSWERS[api]
    answer = data.draw(st.sampled_from(answers))
    body = data.draw(one_place_changed(answer.body))
    server.set_responder(lambda request: dataclasses.replace(answer, body=body), path=path)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]

    ends_readably(adapter, prompt, streamed=False)


@pytest.mark.parametrize("api", ["chat", "responses"])
@HOSTILE
@given(data=st.data())
def test_a_hostile_stream_event_is_an_answer_or_a_readable_error(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str, data: Any
) -> None:
    path, answers = ANSWERS[api]
    answer: JsonReply = data.draw(st.sampled_from(answers))
    stream: SseReply = chat_stream(answer) if api == "chat" else responses_stream(answer)
    reply = data.draw(one_event_changed(stream))
    server.set_responder(lambda request: reply, path=path)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]

    ends_readably(adapter, prompt, streamed=True)
