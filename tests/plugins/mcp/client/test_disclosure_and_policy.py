"""An MCP section is a section like any other: summarized, it neither connects nor shows its
tools until the model opens it with ``open_sections``; its tools obey the executor's allowlist;
and a sync ``stream`` runs them as ``evaluate`` does."""

from __future__ import annotations

import sys

from mcp_client_support import CALL_TIMEOUT, CONNECT_TIMEOUT, WAIT, evaluate, prompt_of, within

from affordance import AllowList, RunFinished, ToolCallFinished, ToolExecutor
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPSection

TOKYO = {"timezone": "Asia/Tokyo"}


def time_section(**options: object) -> MCPSection:
    return MCPSection.stdio(
        sys.executable,
        ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        title="Time",
        key="time",
        connect_timeout=CONNECT_TIMEOUT,
        call_timeout=CALL_TIMEOUT,
        **options,
    )


def test_a_summarized_section_connects_only_once_the_model_opens_it() -> None:
    section = time_section(summary="Clocks of every timezone.")
    prompt = prompt_of(section, task="What time is it in Tokyo?")
    try:
        rendered = within(WAIT, prompt.render)
        assert [tool.name for tool in rendered.tools] == ["open_sections"]
        assert "Clocks of every timezone." in rendered.text
        assert section.connection.connects == 0  # summarized: never asked for its tools

        adapter = ScriptedAdapter(
            [
                tool_calls(
                    tool_call("open_sections", {"section_keys": ["time"], "reason": "clocks"})
                ),
                tool_calls(tool_call("get_current_time", TOKYO)),
                text("evening"),
            ]
        )
        response = evaluate(adapter, prompt)
    finally:
        within(WAIT, section.close)

    opened, called = response.tool_results
    assert opened.result.success
    assert called.result.success, called.result.message
    assert called.result.value.structured["timezone"] == "Asia/Tokyo"
    assert section.connection.connects == 1
    assert {tool.name for tool in adapter.requests[1].tools} >= {
        "get_current_time",
        "convert_time",
    }


def test_the_allowlist_refuses_an_mcp_tool_before_the_server_is_called() -> None:
    section = time_section()
    prompt = prompt_of(section)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("convert_time", {"source_timezone": "UTC"})),
            tool_calls(tool_call("get_current_time", TOKYO)),
            text("done"),
        ],
        executor=ToolExecutor(policy=AllowList({"get_current_time"})),
    )
    try:
        response = evaluate(adapter, prompt)
    finally:
        within(WAIT, section.close)

    refused, allowed = response.tool_results
    assert not refused.result.success
    assert "not on the allowlist" in refused.result.message
    assert allowed.result.success


def test_a_sync_stream_runs_the_call_and_reports_it() -> None:
    section = time_section()
    prompt = prompt_of(section)
    adapter = ScriptedAdapter([tool_calls(tool_call("get_current_time", TOKYO)), text("done")])

    def consume() -> list[object]:
        with adapter.stream(prompt) as events:
            return list(events)

    try:
        events = within(WAIT, consume)
    finally:
        within(WAIT, section.close)

    finished = [event for event in events if isinstance(event, ToolCallFinished)]
    assert [event.name for event in finished] == ["get_current_time"]
    assert isinstance(events[-1], RunFinished)
    assert events[-1].response.tool_results[0].result.value.structured["timezone"] == "Asia/Tokyo"
