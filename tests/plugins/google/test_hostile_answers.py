"""Whatever the server answers — a response or a stream chunk with any one field missing or of
any JSON type — the run ends with an answer or a ``PromptEvaluationError``, over the real SDK
and HTTP; never another exception."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's plugin envs run without it

from hostile_json import HOSTILE, ends_readably, one_event_changed, one_place_changed
from hypothesis import given
from hypothesis import strategies as st
from loopback import (
    JsonReply,
    LoopbackServer,
    generate_path,
    google_function_calls,
    google_stream,
    google_text,
    stream_path,
)

from affordance import PromptTemplate
from affordance_google import GoogleAdapter

MODEL = "gemini-test"
ANSWERS = [
    google_text("Sunny."),
    google_function_calls([("get_weather", {"city": "Paris"}, "fc_1")], text="Checking."),
]


@HOSTILE
@given(data=st.data())
def test_a_hostile_response_is_an_answer_or_a_readable_error(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: PromptTemplate[Any],
    data: Any,
) -> None:
    body = data.draw(one_place_changed(data.draw(st.sampled_from(ANSWERS))))
    server.set_responder(lambda request: JsonReply(body), path=generate_path(MODEL))

    ends_readably(make_adapter(), prompt, streamed=False)


@HOSTILE
@given(data=st.data())
def test_a_hostile_stream_chunk_is_an_answer_or_a_readable_error(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: PromptTemplate[Any],
    data: Any,
) -> None:
    stream = google_stream(data.draw(st.sampled_from(ANSWERS)), text_chunk=3)
    reply = data.draw(one_event_changed(stream))
    server.set_responder(lambda request: reply, path=stream_path(MODEL))

    ends_readably(make_adapter(), prompt, streamed=True)
