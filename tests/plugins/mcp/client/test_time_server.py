"""A real third-party server, ``mcp-server-time`` over stdio, through every way to run a prompt.

Its two tools are annotated read-only and idempotent (and not destructive): they run without
confirmation, and the executor caches their results.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from mcp_client_support import (
    CALL_TIMEOUT,
    CONNECT_TIMEOUT,
    WAIT,
    evaluate,
    invoked,
    prompt_of,
    run_async,
    tool_messages,
    within,
)

from affordance import PromptTemplate, RunFinished, ToolCallFinished
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPSection, MCPToolOutput

TIME_TOOLS = {"get_current_time", "convert_time"}


@pytest.fixture(scope="module")
def section() -> Iterator[MCPSection]:
    time_section = MCPSection.stdio(
        sys.executable,
        ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        title="Time",
        connect_timeout=CONNECT_TIMEOUT,
        call_timeout=CALL_TIMEOUT,
    )
    yield time_section
    within(WAIT, time_section.close)


@pytest.fixture(scope="module")
def prompt(section: MCPSection) -> PromptTemplate[object]:
    return prompt_of(section, task="What time is it in Paris?")


def test_its_tools_are_rendered_with_the_servers_names_schemas_and_descriptions(
    section: MCPSection, prompt: PromptTemplate[object]
) -> None:
    rendered = within(WAIT, prompt.render)
    listed = {tool.name: tool for tool in within(WAIT, section.connection.tools)}

    assert {tool.name for tool in rendered.tools} == TIME_TOOLS
    assert "## 2 Time" in rendered.text
    for tool in rendered.tools:
        server_tool = listed[tool.name]
        assert tool.description == server_tool.description
        schema = tool.parameters_schema()
        assert schema["type"] == "object"
        assert schema["properties"] == server_tool.input_schema["properties"]
        assert schema["required"] == server_tool.input_schema["required"]
    current = next(tool for tool in rendered.tools if tool.name == "get_current_time")
    assert current.parameters_schema()["required"] == ["timezone"]


def test_evaluate_calls_the_server_and_the_model_reads_its_answer(
    prompt: PromptTemplate[object],
) -> None:
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("get_current_time", {"timezone": "Europe/Paris"})), text("done")]
    )

    response = evaluate(adapter, prompt)

    assert {tool.name for tool in adapter.requests[0].tools} == TIME_TOOLS
    (result,) = response.tool_results
    assert result.result.success
    output = result.result.value
    assert isinstance(output, MCPToolOutput)
    assert output.tool == "get_current_time"
    assert output.structured["timezone"] == "Europe/Paris"
    assert output.structured["datetime"][-6:] in ("+01:00", "+02:00")
    (message,) = tool_messages(adapter)
    assert not message.is_error
    assert output.structured["datetime"] in message.content
    assert response.text == "done"


def test_aevaluate_calls_the_server(prompt: PromptTemplate[object]) -> None:
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("get_current_time", {"timezone": "Asia/Tokyo"})), text("done")]
    )

    response = run_async(lambda: adapter.aevaluate(prompt))

    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.structured["datetime"].endswith("+09:00")


def test_astream_reports_the_call_and_finishes(prompt: PromptTemplate[object]) -> None:
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call(
                    "convert_time",
                    {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                )
            ),
            text("It is 21:00 in Tokyo."),
        ]
    )

    async def stream() -> list[object]:
        async with adapter.astream(prompt) as events:
            return [event async for event in events]

    events = run_async(stream)

    (finished,) = [event for event in events if isinstance(event, ToolCallFinished)]
    assert finished.name == "convert_time"
    assert finished.success
    assert finished.result.value.structured["target"]["datetime"].endswith("T21:00:00+09:00")
    assert isinstance(events[-1], RunFinished)
    assert events[-1].response.text == "It is 21:00 in Tokyo."


def test_invalid_arguments_fail_readably_without_reaching_the_server(
    prompt: PromptTemplate[object],
) -> None:
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("get_current_time", {"timezone": 3})), text("done")]
    )

    response = evaluate(adapter, prompt)

    (result,) = response.tool_results
    assert not result.result.success
    assert result.result.message == (
        "Invalid arguments for 'get_current_time': 1 validation error for get_current_time:\n"
        "  timezone: 3 is not of type 'string'"
    )
    assert result.result.value is None  # the handler, which calls the server, never ran
    assert result.params is None
    assert response.text == "done"


def test_a_server_side_error_is_a_failed_result_with_the_servers_text(
    prompt: PromptTemplate[object],
) -> None:
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call(
                    "convert_time",
                    {"source_timezone": "UTC", "time": "25:99", "target_timezone": "Asia/Tokyo"},
                )
            ),
            text("done"),
        ]
    )

    response = evaluate(adapter, prompt)

    (result,) = response.tool_results
    assert not result.result.success
    assert "Invalid time format. Expected HH:MM [24-hour format]" in result.result.message
    assert result.result.value.is_error
    (message,) = tool_messages(adapter)
    assert message.is_error
    assert message.content == result.result.message


def test_read_only_idempotent_tools_are_cached_and_need_no_confirmation(
    section: MCPSection, prompt: PromptTemplate[object]
) -> None:
    for tool in within(WAIT, section.tools):
        assert not tool.destructive
        assert tool.cache_ttl == 60.0
    same_call = {"timezone": "America/New_York"}
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("get_current_time", same_call)),
            tool_calls(tool_call("get_current_time", same_call)),
            text("done"),
        ]
    )

    response = evaluate(adapter, prompt)

    assert not response.pending_confirmations
    first, second = invoked(response)
    assert (first.cached, second.cached) == (False, True)
    assert second.result.success
    assert second.result.value == first.result.value
