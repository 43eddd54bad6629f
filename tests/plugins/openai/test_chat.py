"""Chat Completions end to end: the real SDK over HTTP to the loopback server, through
``adapter.evaluate`` and ``adapter.aevaluate``; assertions read the recorded request bodies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    LoopbackServer,
    chat_refusal,
    chat_stream,
    chat_text,
    chat_tool_calls,
    chat_url_citation,
    chat_usage,
)

from affordance import HostedTool, MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance.adapters import Usage, UserMessage
from affordance.testing import comparable
from affordance_openai import OpenAIAdapter

WEATHER_FUNCTION = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
        "required": ["city", "unit"],
        "additionalProperties": False,
    },
    "strict": True,
}


def chat_adapter(client: Any, **options: Any) -> OpenAIAdapter:
    return OpenAIAdapter("gpt-test", client=client, api="chat", **options)


def parallel_calls_then_answer(server: LoopbackServer) -> None:
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls(
            [
                ("c1", "get_weather", {"city": "Paris", "unit": "f"}),
                ("c2", "get_weather", {"city": "Rome", "unit": None}),
            ],
            usage=chat_usage(100, 20, cached_tokens=40, reasoning_tokens=8),
        ),
        chat_text("Sunny in both.", usage=chat_usage(150, 10)),
    )


def check_parallel_run(server: LoopbackServer, answer: Any, calls: Any) -> None:
    assert answer.text == "Sunny in both."
    assert answer.usage == Usage(250, 30, cached_input_tokens=40, reasoning_tokens=8)
    assert sorted(calls.seen) == [("get_weather", "Paris", "f"), ("get_weather", "Rome", "c")]
    first, second = (request.body for request in server.requests)
    assert first["tools"][0] == {"type": "function", "function": WEATHER_FUNCTION}
    assert [message["role"] for message in first["messages"]] == ["user"]
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": '{"city": "Paris", "unit": "f"}',
                    },
                },
                # Chat echoes the arguments the executor ran: the "absent" null is gone.
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "Paris: sunny, 21 f"},
        {"role": "tool", "tool_call_id": "c2", "content": "Rome: sunny, 21 c"},
    ]
    server.assert_script_consumed()


def test_sync_tool_loop_with_parallel_calls_sends_one_tool_message_per_call(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], calls: Any
) -> None:
    parallel_calls_then_answer(server)

    answer = chat_adapter(clients.sync()).evaluate(prompt)

    check_parallel_run(server, answer, calls)


def test_failed_tools_reach_the_model_as_error_tool_messages(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], calls: Any
) -> None:
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls(
            [("c1", "flaky", {"city": "Oslo", "unit": None}), ("c2", "get_weather", "{not json")]
        ),
        chat_text("The service is down."),
    )

    answer = chat_adapter(clients.sync()).evaluate(prompt)

    assert answer.text == "The service is down."
    tool_messages = [m for m in server.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2"]
    assert tool_messages[0]["content"].startswith("Error: Tool 'flaky' failed: RuntimeError")
    assert tool_messages[1]["content"].startswith("Error: Arguments for 'get_weather' are not")
    assert calls.seen == [("flaky", "Oslo", "c")]


@dataclass(frozen=True)
class Forecast:
    city: str
    temperature: float
    confident: bool = True


def test_structured_output_uses_a_strict_response_format(
    server: LoopbackServer, clients: Any, make_prompt: Callable[..., PromptTemplate[Any]]
) -> None:
    server.script(
        CHAT_COMPLETIONS_PATH, chat_text('{"city": "Oslo", "temperature": -3, "confident": null}')
    )

    answer = chat_adapter(clients.sync()).evaluate(make_prompt(output_type=Forecast))

    assert answer.output == Forecast("Oslo", -3, True)
    response_format = server.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "Forecast"
    assert response_format["json_schema"]["strict"] is True


def test_a_refusal_is_the_answer_text_with_finish_reason_refusal(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(CHAT_COMPLETIONS_PATH, chat_refusal("I can't help with that."))

    answer = chat_adapter(clients.sync()).evaluate(prompt)

    assert (answer.text, answer.finish_reason) == ("I can't help with that.", "refusal")


@pytest.mark.parametrize("finish", ["length", "content_filter"])
def test_finish_reasons_are_passed_through(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], finish: str
) -> None:
    server.script(CHAT_COMPLETIONS_PATH, chat_text("Partial", finish_reason=finish))

    answer = chat_adapter(clients.sync()).evaluate(prompt)

    assert answer.finish_reason == finish


@pytest.mark.parametrize("mode", ["evaluate", "stream"])
def test_a_finish_reason_claiming_calls_the_answer_lacks_reads_stop(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    """Calls are read from the answer, never from its finish reason (``function_call`` is the
    legacy word for ``tool_calls``)."""
    reply = chat_text("Sunny.", finish_reason="function_call")
    server.script(CHAT_COMPLETIONS_PATH, reply if mode == "evaluate" else chat_stream(reply))
    adapter = chat_adapter(clients.sync())

    if mode == "evaluate":
        answer = adapter.evaluate(prompt)
    else:
        with adapter.stream(prompt) as events:
            answer = list(events)[-1].response

    assert (answer.text, answer.finish_reason) == ("Sunny.", "stop")


def test_options_and_caller_messages_shape_the_body(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls([("c1", "get_weather", {"city": "Paris", "unit": None})]),
        chat_text("Sunny."),
    )
    adapter = chat_adapter(
        clients.sync(),
        parallel_tool_calls=False,
        tool_choice="required",
        max_output_tokens=50,
        temperature=0.0,
    )

    adapter.evaluate(prompt, messages=[UserMessage("Hi")])

    first, second = (request.body for request in server.requests)
    assert first["messages"][0]["role"] == "system"
    assert "What is the weather?" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": "Hi"}
    assert (first["tool_choice"], second["tool_choice"]) == ("required", "auto")
    assert first["max_completion_tokens"] == 50
    assert first["parallel_tool_calls"] is False
    assert first["temperature"] == 0.0


def test_a_named_tool_choice_uses_the_nested_chat_form(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(CHAT_COMPLETIONS_PATH, chat_text("Fine."))

    chat_adapter(clients.sync(), tool_choice="get_weather").evaluate(prompt)

    assert server.requests[0].body["tool_choice"] == {
        "type": "function",
        "function": {"name": "get_weather"},
    }


@dataclass(frozen=True)
class SearchConfig:
    context: str = "low"


@dataclass(frozen=True)
class Cited:
    text: str
    urls: tuple[str, ...]


class ChatSearchCodec:
    """A Chat web-search codec: request fields in, the cited message out."""

    kind = "fake_search"

    def serialize(self, tool: HostedTool[SearchConfig]) -> dict[str, Any]:
        return {"web_search_options": {"search_context_size": tool.config.context}}

    def parse_output(self, items: Any, tool: HostedTool[SearchConfig]) -> Cited | None:
        for item in items:
            urls = tuple(a["url_citation"]["url"] for a in item["annotations"])
            if urls:
                return Cited(item["content"], urls)
        return None


def hosted_prompt() -> PromptTemplate[Any]:
    search = HostedTool("fake_search", "search", "Search the web.", SearchConfig())
    section = MarkdownSection(title="T", template="Find it.", hosted_tools=[search])
    return PromptTemplate(ns="t", key="h", sections=[section])


def test_a_chat_hosted_tool_is_request_fields_and_reads_the_cited_answer_plain_or_streamed(
    server: LoopbackServer, clients: Any
) -> None:
    answer = chat_text(
        "Paris is sunny.", annotations=[chat_url_citation("https://a.example", "A", 0, 15)]
    )
    server.script(CHAT_COMPLETIONS_PATH, answer, chat_stream(answer))
    adapter = chat_adapter(clients.sync(), codecs={"fake_search": ChatSearchCodec()})

    plain = adapter.evaluate(hosted_prompt())
    with adapter.stream(hosted_prompt()) as events:
        list(events)

    body = server.requests[0].body
    assert body["web_search_options"] == {"search_context_size": "low"}
    assert "tools" not in body
    assert plain.hosted_outputs["search"] == Cited("Paris is sunny.", ("https://a.example",))
    assert comparable(events.response) == comparable(plain)


def test_a_kind_without_a_chat_codec_names_openai_chat(
    server: LoopbackServer, clients: Any
) -> None:
    with pytest.raises(PromptEvaluationError) as raised:
        chat_adapter(clients.sync()).evaluate(hosted_prompt())

    assert "not supported by provider 'openai-chat'" in str(raised.value)
    assert raised.value.phase == "render"
    assert server.requests == ()
