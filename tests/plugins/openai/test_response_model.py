"""The model an OpenAI answer names (Responses' and Chat's ``model``, a dated snapshot of the one
asked for, typically) as the turn's ``response_model`` and ``ModelAnswered.response_model``,
plain and streamed; the base URL the client sends to as the model's ``endpoint`` and
``ModelRequestSent.server``. Over the real SDK and HTTP to the loopback server, whose answers
name ``gpt-loopback`` while the adapter asks for ``gpt-test``."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from drivers import DRIVERS
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    SseEvent,
    SseReply,
    chat_completion,
    chat_message,
    chat_stream,
    chat_text,
    message_item,
    output_text_part,
    response,
    response_text,
    responses_stream,
)
from turns import request_for, streamed_turn

from affordance import EventBus, ModelAnswered, ModelRequestSent, PromptTemplate
from affordance_openai import OpenAIAdapter

PATHS = {"responses": RESPONSES_PATH, "chat": CHAT_COMPLETIONS_PATH}
SNAPSHOT = "gpt-5-2025-08-07"


def answer(api: str, model: Any = SNAPSHOT) -> JsonReply:
    """``Sunny.``, naming ``model`` as its ``model`` (any JSON value; ``...`` leaves the key
    out)."""
    if api == "responses":
        reply = response([message_item(output_text_part("Sunny."))])
    else:
        reply = chat_completion(chat_message("Sunny."))
    body = {key: value for key, value in reply.body.items() if key != "model"}
    return dataclasses.replace(reply, body=body if model is ... else {**body, "model": model})


def streamed(api: str, reply: JsonReply) -> SseReply:
    return responses_stream(reply) if api == "responses" else chat_stream(reply)


def named(stream: SseReply, model: Any) -> SseReply:
    """``stream`` with each ``model`` it names (Chat's chunks', the Responses events' response's)
    set to ``model`` (``...``: left out)."""

    def rename(data: Any) -> Any:
        if not isinstance(data, dict):
            return data  # Chat's [DONE]
        if isinstance(data.get("response"), dict):
            return {**data, "response": rename(data["response"])}
        if "model" not in data:
            return data
        kept = {key: value for key, value in data.items() if key != "model"}
        return kept if model is ... else {**kept, "model": model}

    events = [dataclasses.replace(event, data=rename(event.data)) for event in stream.events]
    return dataclasses.replace(stream, events=events)


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_the_turn_names_the_model_the_answer_names_plain_and_streamed(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str
) -> None:
    server.script(PATHS[api], answer(api), streamed(api, answer(api)))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.response_model, stream.response_model) == (SNAPSHOT, SNAPSHOT)
    assert server.requests[0].body["model"] == "gpt-test"
    server.assert_script_consumed()


@pytest.mark.parametrize("model", [..., None, "", 5, ["gpt-x"], {"id": "gpt-x"}])
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_an_answer_naming_no_model_as_a_string_names_none(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str, model: Any
) -> None:
    server.script(PATHS[api], answer(api, model), named(streamed(api, answer(api)), model))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]
    request = request_for(adapter, prompt)

    plain, stream = adapter.send(request), streamed_turn(adapter, request)

    assert (plain.text, plain.response_model) == ("Sunny.", None)
    assert (stream.text, stream.response_model) == ("Sunny.", None)


def test_a_stream_whose_final_response_names_no_model_keeps_the_one_it_began_with(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    stream = responses_stream(answer("responses"))
    *events, completed = stream.events
    assert completed.data["type"] == "response.completed"
    final = {key: value for key, value in completed.data["response"].items() if key != "model"}
    last = SseEvent({**completed.data, "response": final}, event=completed.event)
    server.script(RESPONSES_PATH, dataclasses.replace(stream, events=[*events, last]))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    turn = streamed_turn(adapter, request_for(adapter, prompt))

    assert turn.response_model == SNAPSHOT


def test_each_chat_chunk_may_name_the_model_the_first_that_does_is_kept(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    stream = chat_stream(chat_text("Sunny."))
    first, *rest = stream.events
    unnamed = SseEvent({**first.data, "model": ""})  # as Azure's prompt-filter chunk names it
    server.script(CHAT_COMPLETIONS_PATH, dataclasses.replace(stream, events=[unnamed, *rest]))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api="chat")

    turn = streamed_turn(adapter, request_for(adapter, prompt))

    assert turn.response_model == "gpt-loopback"


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_model_answered_names_the_response_model_and_the_request_its_server(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], api: str, driver: str
) -> None:
    reply = chat_text("Sunny.") if api == "chat" else response_text("Sunny.")
    server.script(PATHS[api], streamed(api, reply) if "stream" in driver else reply)
    bus, seen = EventBus(), []
    bus.subscribe(ModelRequestSent, seen.append)
    bus.subscribe(ModelAnswered, seen.append)
    base_url = f"{server.base_url}/"  # the SDK's client ends its base URL with a slash

    if driver in ("evaluate", "stream"):
        adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)  # type: ignore[arg-type]
        if driver == "evaluate":
            adapter.evaluate(prompt, bus=bus)
        else:
            with adapter.stream(prompt, bus=bus) as events:
                list(events)
        assert adapter.connection.endpoint(asynchronous=False) == base_url
    else:

        async def run() -> str | None:
            async with clients.async_() as client:
                adapter = OpenAIAdapter("gpt-test", client=client, api=api)  # type: ignore[arg-type]
                if driver == "aevaluate":
                    await adapter.aevaluate(prompt, bus=bus)
                else:
                    async with adapter.astream(prompt, bus=bus) as events:
                        [event async for event in events]
                return adapter.connection.endpoint(asynchronous=True)

        assert asyncio.run(run()) == base_url

    sent, answered = seen
    assert isinstance(sent, ModelRequestSent)
    assert isinstance(answered, ModelAnswered)
    assert (sent.model, sent.server, sent.streamed) == ("gpt-test", base_url, "stream" in driver)
    assert (answered.model, answered.response_model) == ("gpt-test", "gpt-loopback")
    server.assert_script_consumed()
