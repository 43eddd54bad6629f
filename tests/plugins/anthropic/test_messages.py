"""The Messages API end to end: the real SDK over HTTP to the loopback server, each behaviour
through ``evaluate``, ``aevaluate``, ``stream`` and ``astream``; assertions read the recorded
request bodies."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from loopback import (
    message,
    message_pause_turn,
    message_refusal,
    message_text,
    message_tool_uses,
    message_usage,
    server_tool_use_block,
    text_block,
    tool_use_block,
    web_search_result,
    web_search_result_location,
    web_search_tool_result_block,
)

from affordance import HostedTool, MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage, Usage, UserMessage
from affordance.runtime.record.stream_events import TextDelta
from affordance.testing import comparable
from affordance_anthropic import AnthropicAdapter

MODES = ("evaluate", "aevaluate", "stream", "astream")

WEATHER_DECLARATION = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "description": '{"default": "c"}'},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


@pytest.mark.parametrize("mode", MODES)
def test_parallel_calls_are_answered_in_one_user_message_after_the_unchanged_content(
    loopback: Any, prompt: PromptTemplate[Any], calls: Any, mode: str
) -> None:
    first = message_tool_uses(
        [
            ("toolu_1", "get_weather", {"city": "Paris", "unit": "f"}),
            ("toolu_2", "get_weather", {"city": "Rome"}),
        ],
        text="Checking both.",
        usage=message_usage(100, 20, cache_creation_input_tokens=30, cache_read_input_tokens=40),
    )
    loopback.script(mode, first, message_text("Sunny in both.", usage=message_usage(150, 10)))

    answer = loopback.run(mode, prompt)

    assert (answer.text, answer.finish_reason, answer.turns) == ("Sunny in both.", "stop", 2)
    assert answer.usage == Usage(320, 30, cached_input_tokens=40)
    assert sorted(calls.seen) == [("get_weather", "Paris", "f"), ("get_weather", "Rome", "c")]
    request, follow_up = loopback.bodies()
    assert request["model"] == "claude-test"
    assert request["max_tokens"] == 8192
    assert request.get("stream", False) is (mode in ("stream", "astream"))
    assert "What is the weather?" in request["messages"][0]["content"]
    assert request["messages"][0]["role"] == "user"
    assert "system" not in request
    assert request["tools"][0] == WEATHER_DECLARATION
    assert [tool["name"] for tool in request["tools"]] == ["get_weather", "flaky"]
    assert "tool_choice" not in request
    assert follow_up["messages"][1:] == [
        {"role": "assistant", "content": first.body["content"]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Paris: sunny, 21 f"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Rome: sunny, 21 c"},
            ],
        },
    ]
    loopback.server.assert_script_consumed()


@pytest.mark.parametrize("mode", MODES)
def test_failed_tools_reach_the_model_flagged_is_error_and_the_run_continues(
    loopback: Any, prompt: PromptTemplate[Any], calls: Any, mode: str
) -> None:
    loopback.script(
        mode,
        message_tool_uses(
            [
                ("toolu_1", "flaky", {"city": "Oslo"}),
                ("toolu_2", "no_such_tool", {}),
                ("toolu_3", "get_weather", {"city": 7}),
            ]
        ),
        message_text("Sorry, the weather service is down."),
    )

    answer = loopback.run(mode, prompt)

    assert answer.text == "Sorry, the weather service is down."
    assert calls.seen == [("flaky", "Oslo", "c")]
    results = loopback.bodies()[1]["messages"][-1]["content"]
    assert [(r["tool_use_id"], r["is_error"]) for r in results] == [
        ("toolu_1", True),
        ("toolu_2", True),
        ("toolu_3", True),
    ]
    assert "RuntimeError: backend down" in results[0]["content"]
    assert "Unknown tool 'no_such_tool'" in results[1]["content"]
    assert "city" in results[2]["content"]
    assert [r.result.success for r in answer.tool_results] == [False, False, False]


@dataclass(frozen=True)
class Forecast:
    city: str
    temperature: float
    note: str | None = None


@pytest.mark.parametrize("mode", MODES)
def test_structured_output_uses_the_native_json_format_and_parses_the_answer(
    loopback: Any, make_prompt: Callable[..., PromptTemplate[Any]], mode: str
) -> None:
    loopback.script(mode, message_text('{"city": "Paris", "temperature": 21.5}'))

    answer = loopback.run(
        mode,
        make_prompt(output_type=Forecast),
        adapter_options={"extra_body": {"output_config": {"effort": "low"}}},
    )

    assert answer.output == Forecast("Paris", 21.5)
    (body,) = loopback.bodies()
    assert body["output_config"] == {
        "effort": "low",  # the caller's extra_body, merged beside the format
        "format": {
            "type": "json_schema",
            "schema": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "temperature": {"type": "number"},
                    "note": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "description": '{"default": null}',
                    },
                },
                "required": ["city", "temperature"],
                "additionalProperties": False,
            },
        },
    }
    assert "system" not in body


@dataclass(frozen=True)
class Tally:
    counts: dict[str, int]


def test_an_output_schema_outside_the_strict_subset_is_asked_for_in_the_system_prompt(
    loopback: Any, make_prompt: Callable[..., PromptTemplate[Any]]
) -> None:
    loopback.script("evaluate", message_text('```json\n{"counts": {"sun": 2}}\n```'))

    answer = loopback.run(
        "evaluate", make_prompt(output_type=Tally), messages=[UserMessage("Count them.")]
    )

    assert answer.output == Tally({"sun": 2})
    (body,) = loopback.bodies()
    assert "output_config" not in body
    rendered, instructions = body["system"].split("\n\n", 1)[0], body["system"]
    assert "What is the weather?" in rendered
    assert "Give your final answer (Tally) as a single JSON value" in instructions
    assert '"additionalProperties":{"type":"integer"}' in instructions


@pytest.mark.parametrize("mode", MODES)
def test_a_refusal_keeps_its_text_and_finish_reason(
    loopback: Any, prompt: PromptTemplate[Any], mode: str
) -> None:
    loopback.script(
        mode, message_refusal("I started, but", category="cyber", explanation="Not this one.")
    )

    answer = loopback.run(mode, prompt)

    assert (answer.text, answer.finish_reason) == ("I started, but", "refusal")


@pytest.mark.parametrize("mode", MODES)
def test_a_refusal_of_structured_output_is_an_output_error_with_the_explanation(
    loopback: Any, make_prompt: Callable[..., PromptTemplate[Any]], mode: str
) -> None:
    loopback.script(mode, message_refusal(category="bio", explanation="Cannot help with that."))

    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run(mode, make_prompt(output_type=Forecast))

    assert raised.value.phase == "output"
    assert raised.value.raw_text == "Cannot help with that."


@pytest.mark.parametrize(
    ("stop_reason", "finish"),
    [
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("stop_sequence", "stop"),
        ("end_turn", "stop"),
    ],
)
@pytest.mark.parametrize("mode", ["evaluate", "astream"])
def test_stop_reasons_map_to_finish_reasons(
    loopback: Any, prompt: PromptTemplate[Any], mode: str, stop_reason: str, finish: str
) -> None:
    loopback.script(mode, message_text("Partial", stop_reason=stop_reason))

    answer = loopback.run(mode, prompt)

    assert (answer.text, answer.finish_reason) == ("Partial", finish)


@dataclass(frozen=True)
class SearchConfig:
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchOutput:
    queries: tuple[str, ...]
    urls: tuple[str, ...]
    cited: tuple[tuple[int, int, str], ...]


class FakeSearchCodec:
    """A third-party style codec: works on plain dicts only, and places each citation in the
    answer by the position of its text block. Its kind is one no installed plugin registers
    (``web_search`` is affordance-web-search's, with its own config type)."""

    kind = "fake_search"

    def serialize(self, tool: HostedTool[SearchConfig]) -> dict[str, Any]:
        return {
            "type": "web_search_20250305",
            "name": "web_search",
            "allowed_domains": list(tool.config.allowed),
        }

    def parse_output(
        self, items: Sequence[Mapping[str, Any]], tool: HostedTool[SearchConfig]
    ) -> SearchOutput | None:
        assert all(type(item) is dict for item in items)
        queries = tuple(
            item["input"]["query"] for item in items if item["type"] == "server_tool_use"
        )
        if not queries:
            return None
        urls = tuple(
            result["url"]
            for item in items
            if item["type"] == "web_search_tool_result"
            for result in item["content"]
        )
        cited: list[tuple[int, int, str]] = []
        position = 0
        for item in items:
            if item["type"] != "text":
                continue
            end = position + len(item["text"])
            cited.extend((position, end, c["url"]) for c in item.get("citations") or ())
            position = end
        return SearchOutput(queries, urls, tuple(cited))


def hosted_prompt() -> PromptTemplate[Any]:
    search = HostedTool("fake_search", "search", "Search the web.", SearchConfig(("a.example",)))
    section = MarkdownSection(title="Task", template="Find it.", hosted_tools=[search])
    return PromptTemplate(ns="tests", key="hosted", sections=[section])


SEARCHED = [
    server_tool_use_block("srvtoolu_1", "web_search", {"query": "paris weather"}),
    web_search_tool_result_block("srvtoolu_1", [web_search_result("https://a.example", "A")]),
    text_block("Paris is "),
    text_block("sunny.", [web_search_result_location("https://a.example", "A", "sunny all day")]),
]


@pytest.mark.parametrize("mode", MODES)
def test_a_paused_server_tool_turn_is_continued_and_its_blocks_reach_the_codec(
    loopback: Any, mode: str
) -> None:
    paused = message_pause_turn(
        [server_tool_use_block("srvtoolu_1", "web_search", {"query": "paris weather"})],
        usage=message_usage(30, 5, web_search_requests=1),
    )
    done = message(SEARCHED[1:], usage=message_usage(60, 12))
    loopback.script(mode, paused, done)

    answer = loopback.run(
        mode, hosted_prompt(), adapter_options={"codecs": {"fake_search": FakeSearchCodec()}}
    )

    assert (answer.text, answer.finish_reason, answer.turns) == ("Paris is sunny.", "stop", 2)
    assert answer.usage == Usage(90, 17)
    first, second = loopback.bodies()
    assert first["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "allowed_domains": ["a.example"]}
    ]
    # the paused content goes back as the last (assistant) message, and the API continues it
    assert second["messages"][1:] == [{"role": "assistant", "content": paused.body["content"]}]
    assert answer.hosted_outputs["search"] == SearchOutput(
        ("paris weather",), ("https://a.example",), ((9, 15, "https://a.example"),)
    )


@pytest.mark.parametrize("mode", MODES)
def test_server_tool_blocks_and_citations_reach_the_codec_as_plain_dicts(
    loopback: Any, mode: str
) -> None:
    loopback.script(mode, message(SEARCHED, usage=message_usage(40, 20, web_search_requests=1)))

    answer = loopback.run(
        mode, hosted_prompt(), adapter_options={"codecs": {"fake_search": FakeSearchCodec()}}
    )

    assert answer.text == "Paris is sunny."
    assert answer.hosted_outputs["search"] == SearchOutput(
        ("paris weather",), ("https://a.example",), ((9, 15, "https://a.example"),)
    )


def test_a_hosted_kind_without_a_codec_is_an_error_naming_provider_and_kind(
    loopback: Any,
) -> None:
    with pytest.raises(PromptEvaluationError) as raised:
        loopback.run("evaluate", hosted_prompt())

    assert raised.value.provider == "anthropic"
    assert "'fake_search'" in str(raised.value)
    assert raised.value.phase == "render"
    assert loopback.server.requests == ()


RICH = [
    {"type": "thinking", "thinking": "Two cities; two calls.", "signature": "sig_abc"},
    {"type": "redacted_thinking", "data": "opaque"},
    *SEARCHED,
    tool_use_block("toolu_1", "get_weather", {"city": "Paris"}),
    tool_use_block("toolu_2", "get_weather", {"city": "Rome", "unit": "f"}),
]


@pytest.mark.parametrize(("plain", "streamed"), [("evaluate", "stream"), ("aevaluate", "astream")])
def test_a_streamed_run_equals_the_plain_run_of_the_same_answers(
    loopback: Any, make_prompt: Callable[..., PromptTemplate[Any]], plain: str, streamed: str
) -> None:
    answers = (
        message(
            RICH, stop_reason="tool_use", usage=message_usage(80, 30, cache_read_input_tokens=9)
        ),
        message_text("Sunny — ensoleillé ☀.", usage=message_usage(90, 8)),
    )
    options = {"codecs": {"fake_search": FakeSearchCodec()}}
    search = HostedTool("fake_search", "search", "Search the web.", SearchConfig())
    prompt = make_prompt()
    section = MarkdownSection(title="Search", template="Search.", hosted_tools=[search])
    prompt = PromptTemplate(ns="tests", key="rich", sections=[*prompt.sections, section])
    loopback.script(plain, *answers)
    expected = loopback.run(plain, prompt, adapter_options=options)
    loopback.script(streamed, *answers)

    got = loopback.run(streamed, prompt, adapter_options=options)

    assert comparable(got) == comparable(expected)
    assert got.hosted_outputs["search"].queries == ("paris weather",)
    plain_body, streamed_body = loopback.bodies()[1], loopback.bodies()[3]
    assert streamed_body["messages"] == plain_body["messages"]
    assert plain_body["messages"][1]["content"] == RICH  # thinking signatures echoed unchanged


@pytest.mark.parametrize(
    ("options", "first", "second"),
    [
        (
            {"tool_choice": "get_weather", "parallel_tool_calls": False},
            {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
            {"type": "auto", "disable_parallel_tool_use": True},
        ),
        ({"tool_choice": "required"}, {"type": "any"}, {"type": "auto"}),
        (
            {"tool_choice": "required", "parallel_tool_calls": False},
            {"type": "any", "disable_parallel_tool_use": True},
            {"type": "auto", "disable_parallel_tool_use": True},
        ),
        ({"tool_choice": "none", "parallel_tool_calls": False}, {"type": "none"}, {"type": "none"}),
        (
            {"parallel_tool_calls": False},
            {"type": "auto", "disable_parallel_tool_use": True},
            {"type": "auto", "disable_parallel_tool_use": True},
        ),
        ({"tool_choice": {"type": "any"}}, {"type": "any"}, {"type": "any"}),
    ],
)
def test_tool_choice_and_parallel_calls_reach_the_body(
    loopback: Any,
    prompt: PromptTemplate[Any],
    options: dict[str, Any],
    first: dict[str, Any],
    second: dict[str, Any],
) -> None:
    loopback.script(
        "evaluate",
        message_tool_uses([("toolu_1", "get_weather", {"city": "Paris"})]),
        message_text("Sunny."),
    )

    loopback.run(
        "evaluate",
        prompt,
        adapter_options={**options, "max_tokens": 300, "temperature": 0.2},
    )

    bodies = loopback.bodies()
    assert [body["tool_choice"] for body in bodies] == [first, second]
    assert {(body["max_tokens"], body["temperature"]) for body in bodies} == {(300, 0.2)}


def test_caller_messages_make_the_rendered_prompt_the_system_prompt_and_merge_by_role(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.script("evaluate", message_text("Done."))
    history = [
        UserMessage("Weather in Paris?"),
        UserMessage("And quickly."),
        AssistantMessage(
            "Checking.",
            (ToolCall("t1", "get_weather", '{"city": "Paris"}'),),
            # another provider's items are not Anthropic content: not echoed
            provider_items=({"type": "reasoning", "summary": []},),
        ),
        ToolResultMessage("t1", "get_weather", "Paris: sunny"),
        UserMessage("Thanks; and Rome?"),
        ToolResultMessage("t2", "get_weather", "late", is_error=True),
    ]

    loopback.run("evaluate", prompt, messages=history)

    (body,) = loopback.bodies()
    assert "What is the weather?" in body["system"]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather in Paris?"},
                {"type": "text", "text": "And quickly."},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [  # tool results first, as the API requires
                {"type": "tool_result", "tool_use_id": "t1", "content": "Paris: sunny"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "late", "is_error": True},
                {"type": "text", "text": "Thanks; and Rome?"},
            ],
        },
    ]


def test_text_arrives_in_pieces_while_the_model_speaks(
    loopback: Any, prompt: PromptTemplate[Any]
) -> None:
    loopback.script("stream", message_text("Sunny in Paris today."))
    adapter = AnthropicAdapter("claude-test", client=loopback.sync())

    with adapter.stream(prompt) as events:
        seen = [event.text for event in events if isinstance(event, TextDelta)]

    assert seen == ["Sun", "ny ", "in ", "Par", "is ", "tod", "ay."]
