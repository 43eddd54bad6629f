"""``MCPSection``: what the prompt shows of a server (names, filters, descriptions, body), the
render-time name checks, and ``with`` / ``async with`` as the section's lifetime."""

from __future__ import annotations

import pytest
from mcp_client_support import (
    CALL_TIMEOUT,
    WAIT,
    calls_made,
    children_running,
    evaluate,
    is_alive,
    prompt_of,
    run_async,
    server_pid,
    toolbox_connection,
    wait_gone,
    within,
)

from affordance import MarkdownSection, PromptRenderError, PromptTemplate, tool
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPConnection, MCPSection

TOOLBOX_TOOLS = {
    "whoami",
    "calls_made",
    "record",
    "delete_item",
    "no_hints",
    "fetch_page",
    "summarize",
    "weather",
    "picture",
    "big_text",
    "fail",
    "slow_write",
    "slow_read",
    "add_tool",
    "echo_header",
}


def names(section: MCPSection) -> set[str]:
    return {item.name for item in within(WAIT, prompt_of(section).render).tools}


def test_the_section_lists_the_servers_tools_under_its_instructions(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox")

    rendered = within(WAIT, prompt_of(section).render)

    assert {item.name for item in rendered.tools} >= TOOLBOX_TOOLS
    assert "## 2 Toolbox\nThe toolbox server, for the client tests.\n" in rendered.text


def test_a_prefix_names_the_tools_and_calls_reach_the_servers_own_names(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", prefix="tb_", call_timeout=CALL_TIMEOUT)
    assert names(section) >= {f"tb_{name}" for name in TOOLBOX_TOOLS}
    before = calls_made(toolbox).count("record")
    adapter = ScriptedAdapter([tool_calls(tool_call("tb_record", {"note": "hi"})), text("ok")])

    response = evaluate(adapter, prompt_of(section))

    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.text == "recorded 'hi' 1 time(s)"
    assert result.result.value.tool == "record"
    assert calls_made(toolbox).count("record") == before + 1


def test_include_and_exclude_filter_by_the_servers_names(toolbox: MCPConnection) -> None:
    included = MCPSection(toolbox, title="Some", include={"whoami", "Fetch.Page", "missing"})
    excluded = MCPSection(toolbox, title="Most", exclude={"Fetch.Page", "whoami"})

    assert names(included) == {"whoami", "fetch_page"}
    assert names(excluded) == TOOLBOX_TOOLS - {"whoami", "fetch_page"}


def test_a_name_with_capitals_and_a_dot_is_made_safe_and_called_by_its_own(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", include={"Fetch.Page"})
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("fetch_page", {"url": "https://example.org"})), text("ok")]
    )

    response = evaluate(adapter, prompt_of(section))

    assert [item.name for item in adapter.requests[0].tools] == ["fetch_page"]
    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.tool == "Fetch.Page"
    assert result.result.value.text == "page at https://example.org"


def test_a_long_description_is_shortened_and_given_whole_in_the_section_body(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", include={"summarize", "whoami"})

    rendered = within(WAIT, prompt_of(section).render)

    summarize = next(item for item in rendered.tools if item.name == "summarize")
    assert len(summarize.description) <= 200
    assert summarize.description.startswith("Summarizes a document in several careful steps")
    assert summarize.description.endswith("... (in full in the prompt)")
    assert "LONGTAIL" not in summarize.description
    whole = next(
        item for item in within(WAIT, toolbox.tools) if item.name == "summarize"
    ).description
    assert len(whole) > 200
    assert f"What the tools do:\n- `summarize`: {whole}" in rendered.text
    whoami = next(item for item in rendered.tools if item.name == "whoami")
    assert whoami.description == "The process id of this server."
    assert "`whoami`" not in rendered.text  # a short description stays in its declaration


def test_a_name_shared_with_a_local_tool_is_a_render_error(toolbox: MCPConnection) -> None:
    @tool
    def record(note: str) -> str:
        """A local tool with the name of one of the server's."""
        return note

    section = MCPSection(toolbox, title="Toolbox")
    prompt = PromptTemplate(
        ns="tests-mcp-client",
        key="task",
        sections=[MarkdownSection(title="Local", template="Notes.", tools=[record]), section],
    )
    adapter = ScriptedAdapter([text("never sent")])

    with pytest.raises(PromptRenderError, match=r"duplicate tool name 'record'.*prefix"):
        within(WAIT, prompt.render)
    with pytest.raises(PromptRenderError, match="duplicate tool name 'record'"):
        evaluate(adapter, prompt)
    assert adapter.sent == 0
    assert "record" in names(MCPSection(toolbox, title="Alone"))


def test_two_sections_of_one_server_need_a_prefix(toolbox: MCPConnection) -> None:
    first = MCPSection(toolbox, title="First", include={"whoami"})
    same = MCPSection(toolbox, title="Second", include={"whoami"})
    prefixed = MCPSection(toolbox, title="Third", include={"whoami"}, prefix="other_")

    with pytest.raises(PromptRenderError, match="duplicate tool name 'whoami'"):
        within(WAIT, prompt_of(first, same).render)
    rendered = within(WAIT, prompt_of(first, prefixed).render)
    assert [item.name for item in rendered.tools] == ["whoami", "other_whoami"]


def test_with_section_connects_at_once_and_closes_at_the_end() -> None:
    connection = toolbox_connection("--tag", "with-section")
    section = MCPSection(connection, title="Toolbox", include={"whoami"})

    with section:
        assert connection.connected
        (pid,) = children_running("with-section")
        assert server_pid(connection) == pid
        assert names(section) == {"whoami"}
        assert connection.connects == 1

    assert not connection.connected
    wait_gone(pid)
    assert children_running("with-section") == []


def test_async_with_section_connects_at_once_and_closes_at_the_end() -> None:
    connection = toolbox_connection("--tag", "async-with-section")
    section = MCPSection(connection, title="Toolbox", include={"whoami"}, call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter([tool_calls(tool_call("whoami")), text("ok")])

    async def body() -> tuple[int, int]:
        async with section:
            assert connection.connected
            (pid,) = children_running("async-with-section")
            response = await adapter.aevaluate(prompt_of(section))
        assert not connection.connected
        return pid, response.tool_results[0].result.value.structured["result"]

    pid, answered = run_async(body)

    assert answered == pid
    assert connection.connects == 1
    wait_gone(pid)
    assert not is_alive(pid)
