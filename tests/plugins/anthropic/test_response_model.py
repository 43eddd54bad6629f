"""The model a Messages answer names (its ``model``: streamed, ``message_start``'s message) as
the turn's ``response_model`` and ``ModelAnswered.response_model``, plain and streamed; the base
URL the client sends to as the model's ``endpoint`` and ``ModelRequestSent.server``. Over the
real SDK and HTTP to the loopback server, whose answers name ``claude-loopback`` while the
adapter asks for ``claude-test``."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from loopback import (
    MESSAGES_PATH,
    JsonReply,
    LoopbackServer,
    message,
    message_stream,
    text_block,
)
from turns import request_for, streamed_turn

from affordance import EventBus, ModelAnswered, ModelRequestSent, PromptTemplate
from affordance_anthropic import AnthropicAdapter

MODEL = "claude-test"  # what the conftest's adapters ask for
MODES = ("evaluate", "aevaluate", "stream", "astream")
SNAPSHOT = "claude-sonnet-4-5-20250929"


def answer(model: Any = SNAPSHOT) -> JsonReply:
    """``Sunny.``, naming ``model`` as its ``model`` (any JSON value; ``...`` leaves the key
    out)."""
    reply = message([text_block("Sunny.")])
    body = {key: value for key, value in reply.body.items() if key != "model"}
    return dataclasses.replace(reply, body=body if model is ... else {**body, "model": model})


def test_the_turn_names_the_model_the_answer_names_plain_and_streamed(
    server: LoopbackServer, loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(MESSAGES_PATH, answer(), message_stream(answer()))
    adapter = AnthropicAdapter(MODEL, client=loopback.sync())
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.response_model, stream.response_model) == (SNAPSHOT, SNAPSHOT)
    assert server.requests[0].body["model"] == MODEL
    server.assert_script_consumed()


@pytest.mark.parametrize("model", [..., None, "", 5, ["claude-x"], {"id": "claude-x"}])
def test_an_answer_naming_no_model_as_a_string_names_none(
    server: LoopbackServer, loopback: Any, prompt: PromptTemplate[Any], model: Any
) -> None:
    server.script(MESSAGES_PATH, answer(model), message_stream(answer(model)))
    adapter = AnthropicAdapter(MODEL, client=loopback.sync())
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.text, plain.response_model) == ("Sunny.", None)
    assert (stream.text, stream.response_model) == ("Sunny.", None)


@pytest.mark.parametrize("mode", MODES)
def test_model_answered_names_the_response_model_and_the_request_its_server(
    server: LoopbackServer, loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.script(mode, message([text_block("Sunny.")]))
    bus, seen = EventBus(), []
    bus.subscribe(ModelRequestSent, seen.append)
    bus.subscribe(ModelAnswered, seen.append)

    loopback.run(mode, prompt, bus=bus)

    sent, answered = seen
    assert isinstance(sent, ModelRequestSent)
    assert isinstance(answered, ModelAnswered)
    assert (sent.model, sent.server, sent.streamed) == (MODEL, server.base_url, "stream" in mode)
    assert (answered.model, answered.response_model) == (MODEL, "claude-loopback")
    server.assert_script_consumed()


def test_the_endpoint_is_the_base_url_of_the_client_each_side_sends_with(
    server: LoopbackServer, loopback: Any
) -> None:
    async def both() -> tuple[str | None, str | None]:
        async with loopback.async_() as async_client:
            adapter = AnthropicAdapter(MODEL, client=loopback.sync(), async_client=async_client)
            endpoint = adapter.connection.endpoint
            return endpoint(asynchronous=False), endpoint(asynchronous=True)

    assert asyncio.run(both()) == (server.base_url, server.base_url)
