"""A prompt with an MCP server's tools (affordance-mcp) runs durably: one activity lists the
server's tools at the start of the run, its result is recorded in the history, and the workflow
renders the section from that listing for the whole run (``Section.listed``) — no I/O in the
workflow, the same tools on replay. The calls go to the server from the tool activity, on the
worker. A prompt without such sections runs no listing activity. A section that lists its tools
at render but cannot give its listing ahead is still refused when the prompt is built."""

from __future__ import annotations

import asyncio
import sys
import uuid
from typing import Any

import pytest

from affordance import MarkdownSection, PromptResponse, PromptTemplate
from affordance.adapters import ToolResultMessage
from affordance.prompt import Section
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_temporal import PromptRegistry, UnsupportedPromptError
from affordance_temporal.names import LIST_TOOLS_ACTIVITY, MODEL_ACTIVITY, TOOL_ACTIVITY

MCP_PROMPT = "clock.agent"
PLAIN_PROMPT = "plain.agent"
PARIS = {"timezone": "Europe/Paris"}


class Listed(Section[None]):
    """A section whose tools are listed at render but that implements neither
    ``tools_listing`` nor ``listed`` (the registry must refuse it before asking for any tool)."""

    tools_listed_at_render = True

    def tools(self) -> tuple[()]:
        raise AssertionError("the registry asked the section for its tools")


def test_the_registry_refuses_a_listed_section_that_cannot_give_its_listing_ahead() -> None:
    registry = PromptRegistry()
    task = MarkdownSection(title="Task", template="Go.", children=[Listed(title="Clock")])
    registry.add("clock.agent", lambda: PromptTemplate(ns="c", key="a", sections=[task]))
    with pytest.raises(UnsupportedPromptError) as info:
        registry.prompt("clock.agent")
    assert info.value.sections == ("task.clock",)
    assert "run it with evaluate/aevaluate" in str(info.value)
    with pytest.raises(UnsupportedPromptError):
        registry.build_all()  # a worker refuses to start with it


def test_an_mcp_prompt_is_registered_without_connecting() -> None:
    mcp = pytest.importorskip("affordance_mcp", reason="affordance-mcp is not installed")
    section = mcp.MCPSection.stdio(sys.executable, ["-c", "raise SystemExit(3)"], title="Clock")
    registry = PromptRegistry()
    registry.add("clock.agent", lambda: PromptTemplate(ns="c", key="a", sections=[section]))

    registry.build_all()
    # the client decodes results without the server's tools: asking for them would connect
    assert list(registry.tools("clock.agent")) == ["open_sections"]

    assert section.connection.connects == 0


def respond(request: ModelRequest) -> ProviderTurn:
    """Turn 1 asks for the time in Paris when the tool is offered; then it repeats the result."""
    results = [m.content for m in request.messages if isinstance(m, ToolResultMessage)]
    if results:
        return text(f"The server said: {results[0]}")
    if any(tool.name == "get_current_time" for tool in request.tools):
        return tool_calls(tool_call("get_current_time", PARIS, call_id="call-time"))
    return text("no tools here")


@pytest.mark.slow
def test_a_durable_run_lists_the_mcp_tools_once_and_calls_the_server_from_a_worker(
    temporal_server: Any, task_queue: str
) -> None:
    mcp = pytest.importorskip("affordance_mcp", reason="affordance-mcp is not installed")
    from temporalio.client import Client

    from affordance_temporal import durable_worker, start_run

    section = mcp.MCPSection.stdio(
        sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"], title="Time"
    )
    task = MarkdownSection(title="Task", key="task", template="What time is it in Paris?")

    def registry() -> PromptRegistry:
        found = PromptRegistry()
        found.add(MCP_PROMPT, lambda: PromptTemplate(ns="t", key="c", sections=[task, section]))
        found.add(PLAIN_PROMPT, lambda: PromptTemplate(ns="t", key="p", sections=[task]))
        return found

    async def run(client: Client, prompt: str) -> tuple[PromptResponse[Any], Any]:
        handle = await start_run(
            client,
            registry(),
            prompt,
            task_queue=task_queue,
            workflow_id=f"mcp-{uuid.uuid4().hex[:12]}",
        )
        response = await handle.result()
        return response, await handle.handle.fetch_history()

    async def scenario() -> tuple[Any, ...]:
        client = await Client.connect(temporal_server.address)
        adapter = ScriptedAdapter(responder=respond)
        # no workflow cache: each workflow task replays the history from its start, so every
        # turn renders the section again from the recorded listing
        async with durable_worker(
            client, registry(), task_queue=task_queue, adapter=adapter, max_cached_workflows=0
        ):
            durable, history = await run(client, MCP_PROMPT)
            plain, plain_history = await run(client, PLAIN_PROMPT)
        return durable, history, plain, plain_history

    try:
        durable, history, plain, plain_history = asyncio.run(scenario())
    finally:
        section.close()

    (call,) = durable.tool_results
    assert call.call.name == "get_current_time"
    assert call.result.success
    (result,) = [m for m in durable.messages if isinstance(m, ToolResultMessage)]
    assert "Europe/Paris" in result.content  # the server's answer, read by the model
    assert durable.text == f"The server said: {result.content}"
    assert _activities(history) == [
        LIST_TOOLS_ACTIVITY,
        MODEL_ACTIVITY,
        TOOL_ACTIVITY,
        MODEL_ACTIVITY,
    ]
    assert plain.text == "no tools here"
    assert _activities(plain_history) == [MODEL_ACTIVITY]


def _activities(history: Any) -> list[str]:
    return [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
