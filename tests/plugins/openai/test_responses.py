"""The Responses API end to end: the real SDK over HTTP to the loopback server, through
``adapter.evaluate`` and ``adapter.aevaluate``; assertions read the recorded request bodies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fake_search import FakeSearchCodec, SearchOutput, hosted_prompt
from loopback import (
    RESPONSES_PATH,
    LoopbackServer,
    function_call_item,
    message_item,
    output_text_part,
    reasoning_item,
    response,
    response_function_calls,
    response_refusal,
    response_text,
    response_usage,
    url_citation,
    web_search_call_item,
)

from affordance import PromptEvaluationError, PromptTemplate
from affordance.adapters import Usage, UserMessage
from affordance_openai import OpenAIAdapter

WEATHER_DECLARATION = {
    "type": "function",
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


def parallel_calls_then_answer(server: LoopbackServer) -> None:
    server.script(
        RESPONSES_PATH,
        response_function_calls(
            [
                ("c1", "get_weather", {"city": "Paris", "unit": "f"}),
                ("c2", "get_weather", {"city": "Rome", "unit": None}),
            ],
            reasoning="two cities, two calls",
            usage=response_usage(100, 20, cached_tokens=40, reasoning_tokens=8),
        ),
        response_text("Sunny in both.", usage=response_usage(150, 10)),
    )


def check_parallel_run(server: LoopbackServer, answer: Any, calls: Any) -> None:
    assert answer.text == "Sunny in both."
    assert answer.finish_reason == "stop"
    assert answer.usage == Usage(250, 30, cached_input_tokens=40, reasoning_tokens=8)
    # "unit": null means "absent" for a field with a default: the default applies.
    assert sorted(calls.seen) == [("get_weather", "Paris", "f"), ("get_weather", "Rome", "c")]
    first, second = (request.body for request in server.requests)
    assert first["model"] == "gpt-test"
    assert first["input"] == [{"role": "user", "content": first["input"][0]["content"]}]
    assert "What is the weather?" in first["input"][0]["content"]
    assert not {"instructions", "store", "previous_response_id"} & set(first)
    assert first["tools"][0] == WEATHER_DECLARATION
    assert [tool["name"] for tool in first["tools"]] == ["get_weather", "flaky"]
    # The model's output items come back verbatim and in order, then one output per call.
    assert second["input"][1:] == [
        reasoning_item("two cities, two calls"),
        function_call_item("c1", "get_weather", {"city": "Paris", "unit": "f"}),
        function_call_item("c2", "get_weather", {"city": "Rome", "unit": None}),
        {"type": "function_call_output", "call_id": "c1", "output": "Paris: sunny, 21 f"},
        {"type": "function_call_output", "call_id": "c2", "output": "Rome: sunny, 21 c"},
    ]
    server.assert_script_consumed()


def test_sync_tool_loop_with_parallel_calls_echoes_reasoning_and_sums_usage(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], calls: Any
) -> None:
    parallel_calls_then_answer(server)
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    answer = adapter.evaluate(prompt)

    check_parallel_run(server, answer, calls)


def test_failed_tools_reach_the_model_as_error_outputs_and_the_run_continues(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], calls: Any
) -> None:
    server.script(
        RESPONSES_PATH,
        response_function_calls(
            [
                ("c1", "flaky", {"city": "Oslo", "unit": None}),
                ("c2", "get_weather", '{"city": '),  # invalid JSON: not a provider error
                ("c3", "no_such_tool", {}),
                ("c4", "get_weather", {"city": 7, "unit": None}),
            ]
        ),
        response_text("Sorry, the weather service is down."),
    )

    answer = OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(prompt)

    assert answer.text == "Sorry, the weather service is down."
    assert calls.seen == [("flaky", "Oslo", "c")]
    outputs = {
        item["call_id"]: item["output"]
        for item in server.requests[1].body["input"]
        if item.get("type") == "function_call_output"
    }
    assert list(outputs) == ["c1", "c2", "c3", "c4"]
    assert all(output.startswith("Error: ") for output in outputs.values())
    assert "RuntimeError: backend down" in outputs["c1"]
    assert "not valid JSON" in outputs["c2"]
    assert "Unknown tool 'no_such_tool'" in outputs["c3"]
    assert "city" in outputs["c4"]
    assert [r.result.success for r in answer.tool_results] == [False, False, False, False]


@dataclass(frozen=True)
class Forecast:
    city: str
    temperature: float
    note: str | None = None
    confident: bool = True


def test_structured_output_uses_a_strict_text_format_and_parses_the_answer(
    server: LoopbackServer, clients: Any, make_prompt: Callable[..., PromptTemplate[Any]]
) -> None:
    server.script(
        RESPONSES_PATH,
        response_text('{"city": "Paris", "temperature": 21.5, "note": null, "confident": null}'),
    )

    adapter = OpenAIAdapter(
        "gpt-test", client=clients.sync(), extra_body={"text": {"verbosity": "low"}}
    )

    answer = adapter.evaluate(make_prompt(output_type=Forecast))

    assert answer.output == Forecast("Paris", 21.5, None, True)
    assert server.requests[0].body["text"]["verbosity"] == "low"  # merged beside the format
    text_format = server.requests[0].body["text"]["format"]
    assert text_format["type"] == "json_schema"
    assert text_format["name"] == "Forecast"
    assert text_format["strict"] is True
    assert text_format["schema"]["required"] == ["city", "temperature", "note", "confident"]
    assert text_format["schema"]["properties"]["confident"] == {"type": ["boolean", "null"]}


def test_a_refusal_is_the_answer_text_with_finish_reason_refusal(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, response_refusal("I can't help with that."))

    answer = OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(prompt)

    assert answer.text == "I can't help with that."
    assert answer.finish_reason == "refusal"


def test_a_refusal_of_structured_output_is_an_output_error(
    server: LoopbackServer, clients: Any, make_prompt: Callable[..., PromptTemplate[Any]]
) -> None:
    server.script(RESPONSES_PATH, response_refusal("No."))
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(make_prompt(output_type=Forecast))

    assert raised.value.phase == "output"
    assert raised.value.raw_text == "No."


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("max_output_tokens", "length"), ("content_filter", "content_filter")],
)
def test_an_incomplete_response_maps_its_reason_to_the_finish_reason(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any], reason: str, finish: str
) -> None:
    server.script(RESPONSES_PATH, response_text("Partial", incomplete_reason=reason))

    answer = OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(prompt)

    assert (answer.text, answer.finish_reason) == ("Partial", finish)


def test_options_reach_the_body_and_a_forced_tool_choice_applies_to_the_first_turn_only(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(
        RESPONSES_PATH,
        response_function_calls([("c1", "get_weather", {"city": "Paris", "unit": None})]),
        response_text("Sunny."),
    )
    adapter = OpenAIAdapter(
        "gpt-test",
        client=clients.sync(),
        parallel_tool_calls=False,
        tool_choice="get_weather",
        max_output_tokens=300,
        temperature=0.2,
        extra_body={"store": False, "include": ["reasoning.encrypted_content"]},
    )

    adapter.evaluate(prompt)

    first, second = (request.body for request in server.requests)
    assert first["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert second["tool_choice"] == "auto"
    for body in (first, second):
        assert body["parallel_tool_calls"] is False
        assert body["max_output_tokens"] == 300
        assert body["temperature"] == 0.2
        assert body["store"] is False
        assert body["include"] == ["reasoning.encrypted_content"]


def test_caller_messages_make_the_rendered_prompt_the_instructions(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    server.script(RESPONSES_PATH, response_text("Hello."))

    OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(
        prompt, messages=[UserMessage("Hi there")]
    )

    body = server.requests[0].body
    assert "What is the weather?" in body["instructions"]
    assert body["input"] == [{"role": "user", "content": "Hi there"}]


def test_hosted_tools_are_serialized_by_their_codec_and_parsed_from_plain_output_items(
    server: LoopbackServer, clients: Any
) -> None:
    server.script(
        RESPONSES_PATH,
        response(
            [
                web_search_call_item("paris weather", ["https://a.example/p"]),
                message_item(
                    output_text_part("Sunny.", [url_citation("https://a.example/p", "A", 0, 6)])
                ),
            ]
        ),
    )
    adapter = OpenAIAdapter(
        "gpt-test", client=clients.sync(), codecs={"fake_search": FakeSearchCodec()}
    )

    answer = adapter.evaluate(hosted_prompt())

    assert server.requests[0].body["tools"] == [
        {"type": "web_search", "filters": {"allowed_domains": ["a.example"]}}
    ]
    assert server.requests[0].body["include"] == ["web_search_call.action.sources"]
    assert answer.text == "Sunny."
    assert answer.hosted_outputs["search"] == SearchOutput(
        "paris weather", ("https://a.example/p",), ("web_search_call", "message")
    )


def test_a_search_asks_for_its_sources_unless_the_caller_sets_include(
    server: LoopbackServer, clients: Any
) -> None:
    server.script(RESPONSES_PATH, response([message_item(output_text_part("Sunny."))]))
    server.script(RESPONSES_PATH, response([message_item(output_text_part("Sunny."))]))
    codecs = {"fake_search": FakeSearchCodec()}
    own = ["message.output_text.logprobs"]

    OpenAIAdapter("gpt-test", client=clients.sync(), codecs=codecs).evaluate(hosted_prompt())
    OpenAIAdapter(
        "gpt-test", client=clients.sync(), codecs=codecs, extra_body={"include": own}
    ).evaluate(hosted_prompt())

    assert server.requests[0].body["include"] == ["web_search_call.action.sources"]
    assert server.requests[1].body["include"] == own


def test_a_hosted_kind_without_a_codec_is_an_error_naming_provider_and_kind(
    server: LoopbackServer, clients: Any
) -> None:
    adapter = OpenAIAdapter("gpt-test", client=clients.sync())

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(hosted_prompt())

    assert raised.value.provider == "openai"
    assert "'fake_search'" in str(raised.value)
    assert raised.value.phase == "render"
    assert server.requests == ()


def test_output_items_of_another_provider_are_not_echoed(
    server: LoopbackServer, clients: Any, prompt: PromptTemplate[Any]
) -> None:
    from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage

    server.script(RESPONSES_PATH, response_text("Done."))
    history = [
        UserMessage("Weather in Paris?"),
        AssistantMessage(
            "Checking.",
            (ToolCall("t1", "get_weather", {"city": "Paris"}),),
            provider_items=({"type": "thinking", "thinking": "hmm", "signature": "s"},),
        ),
        ToolResultMessage("t1", "get_weather", "Paris: sunny"),
    ]

    OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(prompt, messages=history)

    assert server.requests[0].body["input"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Checking."},
        {
            "type": "function_call",
            "call_id": "t1",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        },
        {"type": "function_call_output", "call_id": "t1", "output": "Paris: sunny"},
    ]
