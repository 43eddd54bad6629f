"""The model a Gemini answer names (its ``modelVersion``, on every stream chunk) as the turn's
``response_model`` and ``ModelAnswered.response_model``, plain and streamed; the base URL the
client's api client sends to (``google-genai`` clients have no ``base_url``) as the model's
``endpoint`` and ``ModelRequestSent.server``. Over the real SDK and HTTP to the loopback server,
whose answers name ``gemini-loopback`` while the adapter asks for ``gemini-test``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from drivers import DRIVERS
from google import genai
from loopback import (
    JsonReply,
    LoopbackServer,
    generate_path,
    google_stream,
    google_text,
    stream_path,
)
from turns import request_for, streamed_turn

from affordance import EventBus, ModelAnswered, ModelRequestSent, PromptTemplate
from affordance_google import GoogleAdapter

PATH = generate_path("gemini-test")
STREAM = stream_path("gemini-test")
SNAPSHOT = "gemini-2.5-flash-preview-05-20"


def answer(model: Any = SNAPSHOT) -> dict[str, Any]:
    """``Sunny.``, naming ``model`` as its ``modelVersion`` (any JSON value; ``...`` leaves the
    key out)."""
    body = {key: value for key, value in google_text("Sunny.").items() if key != "modelVersion"}
    return body if model is ... else {**body, "modelVersion": model}


def test_the_turn_names_the_model_the_answer_names_plain_and_streamed(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter], prompt: PromptTemplate[Any]
) -> None:
    server.script(PATH, JsonReply(answer()))
    server.script(STREAM, google_stream(answer(), text_chunk=2))  # three chunks, each naming it
    adapter = make_adapter()
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.response_model, stream.response_model) == (SNAPSHOT, SNAPSHOT)
    server.assert_script_consumed()


@pytest.mark.parametrize("model", [..., None, "", 5, ["gemini-x"], {"id": "gemini-x"}])
def test_an_answer_naming_no_model_as_a_string_names_none(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: PromptTemplate[Any],
    model: Any,
) -> None:
    server.script(PATH, JsonReply(answer(model)))
    server.script(STREAM, google_stream(answer(model)))
    adapter = make_adapter()
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.text, plain.response_model) == ("Sunny.", None)
    assert (stream.text, stream.response_model) == ("Sunny.", None)


@pytest.mark.parametrize("driver", DRIVERS)
def test_model_answered_names_the_response_model_and_the_request_its_server(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    prompt: PromptTemplate[Any],
    driver: str,
) -> None:
    body = google_text("Sunny.")
    if "stream" in driver:
        server.script(STREAM, google_stream(body))
    else:
        server.script(PATH, JsonReply(body))
    bus, seen = EventBus(), []
    bus.subscribe(ModelRequestSent, seen.append)
    bus.subscribe(ModelAnswered, seen.append)

    if driver in ("evaluate", "stream"):
        adapter = make_adapter()
        if driver == "evaluate":
            adapter.evaluate(prompt, bus=bus)
        else:
            with adapter.stream(prompt, bus=bus) as events:
                list(events)
        assert adapter.connection.endpoint(asynchronous=False) == server.base_url
    else:
        adapter = make_adapter(aio=True)

        async def run() -> None:
            try:
                if driver == "aevaluate":
                    await adapter.aevaluate(prompt, bus=bus)
                else:
                    async with adapter.astream(prompt, bus=bus) as events:
                        [event async for event in events]
            finally:
                await adapter.connection.clients.async_client().aclose()

        asyncio.run(run())
        assert adapter.connection.endpoint(asynchronous=True) == server.base_url

    sent, answered = seen
    assert isinstance(sent, ModelRequestSent)
    assert isinstance(answered, ModelAnswered)
    streamed = "stream" in driver
    assert (sent.model, sent.server, sent.streamed) == ("gemini-test", server.base_url, streamed)
    assert (answered.model, answered.response_model) == ("gemini-test", "gemini-loopback")
    server.assert_script_consumed()


def test_a_client_given_no_base_url_sends_to_the_developer_api() -> None:
    client = genai.Client(api_key="test")
    try:
        endpoint = GoogleAdapter("gemini-test", client=client).connection.endpoint
        assert endpoint(asynchronous=False) == "https://generativelanguage.googleapis.com/"
        assert endpoint(asynchronous=True) == "https://generativelanguage.googleapis.com/"
    finally:
        client.close()


def test_a_vertex_ai_client_sends_to_its_region() -> None:
    client = genai.Client(vertexai=True, project="p", location="europe-west4")
    try:
        endpoint = GoogleAdapter("gemini-test", client=client).connection.endpoint
        assert endpoint(asynchronous=False) == "https://europe-west4-aiplatform.googleapis.com/"
    finally:
        client.close()
