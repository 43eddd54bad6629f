"""An MCP tool as a core ``Tool``: annotations become confirmation (and its overrides), the
``inputSchema`` validates the model's arguments before anything reaches the server, and a
schema that is not JSON Schema fails its calls without stopping the run."""

from __future__ import annotations

from typing import Any

from mcp_client_support import CALL_TIMEOUT, WAIT, calls_made, evaluate, prompt_of, within

from affordance import approve, deny
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPConnection, MCPSection, MCPToolOptions


def toolbox_section(toolbox: MCPConnection, **options: Any) -> MCPSection:
    return MCPSection(toolbox, title="Toolbox", call_timeout=CALL_TIMEOUT, **options)


def test_annotations_decide_destructive_and_cached(toolbox: MCPConnection) -> None:
    tools = {item.name: item for item in within(WAIT, toolbox_section(toolbox).tools)}

    assert tools["delete_item"].destructive  # destructiveHint: true
    assert tools["no_hints"].destructive  # no annotations: the specification's defaults
    assert not tools["record"].destructive  # destructiveHint: false
    assert not tools["whoami"].destructive  # readOnlyHint: true
    assert tools["weather"].cache_ttl == 60.0  # read-only and idempotent
    assert tools["weather"].retry is not None
    for name in ("delete_item", "no_hints", "record", "whoami"):
        assert tools[name].cache_ttl is None
        assert tools[name].retry is None


def test_a_destructive_tool_waits_for_confirmation_then_runs(toolbox: MCPConnection) -> None:
    prompt = prompt_of(toolbox_section(toolbox))
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delete_item", {"item": "report.txt"})), text("deleted")]
    )
    before = calls_made(toolbox).count("delete_item")

    waiting = evaluate(adapter, prompt)

    assert waiting.finish_reason == "confirmation_required"
    (pending,) = waiting.pending_confirmations
    assert (pending.name, dict(pending.arguments)) == ("delete_item", {"item": "report.txt"})
    assert calls_made(toolbox).count("delete_item") == before

    done = evaluate(
        adapter, prompt, session=waiting.session, confirmations={pending.call_id: approve()}
    )

    (result,) = done.tool_results
    assert result.result.success
    assert result.result.value.text == "deleted report.txt"
    assert calls_made(toolbox).count("delete_item") == before + 1
    assert done.text == "deleted"


def test_a_tool_without_annotations_waits_and_a_denial_never_reaches_the_server(
    toolbox: MCPConnection,
) -> None:
    prompt = prompt_of(toolbox_section(toolbox))
    adapter = ScriptedAdapter([tool_calls(tool_call("no_hints", {"x": 1})), text("not run")])
    before = calls_made(toolbox).count("no_hints")

    waiting = evaluate(adapter, prompt)
    (pending,) = waiting.pending_confirmations
    done = evaluate(
        adapter,
        prompt,
        session=waiting.session,
        confirmations={pending.call_id: deny("not today")},
    )

    (result,) = done.tool_results
    assert not result.result.success
    assert "declined to run 'no_hints'; it was not run. Reason: not today" in result.result.message
    assert calls_made(toolbox).count("no_hints") == before


def test_tool_options_override_what_the_annotations_say(toolbox: MCPConnection) -> None:
    section = toolbox_section(
        toolbox,
        tool_options={
            "delete_item": MCPToolOptions(destructive=False),
            "record": MCPToolOptions(destructive=True),
            "whoami": MCPToolOptions(cacheable=True, timeout=3.0),
        },
    )
    tools = {item.name: item for item in within(WAIT, section.tools)}
    assert not tools["delete_item"].destructive
    assert tools["record"].destructive
    assert tools["whoami"].cache_ttl == 60.0
    assert tools["whoami"].timeout == 3.0
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delete_item", {"item": "draft.txt"})), text("deleted")]
    )

    response = evaluate(adapter, prompt_of(section))

    assert not response.pending_confirmations
    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.text == "deleted draft.txt"


def test_invalid_arguments_fail_readably_and_the_server_is_not_called(
    toolbox: MCPConnection,
) -> None:
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("record", {"note": 7, "times": "twice", "extra": True})),
            text("fixed nothing"),
        ]
    )
    before = calls_made(toolbox).count("record")

    response = evaluate(adapter, prompt_of(toolbox_section(toolbox)))

    (result,) = response.tool_results
    assert not result.result.success
    message = result.result.message
    assert message.startswith("Invalid arguments for 'record': 2 validation errors for record:")
    assert "  note: 7 is not of type 'string'" in message
    assert "  times: 'twice' is not of type 'integer'" in message
    assert calls_made(toolbox).count("record") == before
    assert response.text == "fixed nothing"


def test_an_input_schema_that_is_not_json_schema_fails_each_call_and_the_run_goes_on(
    hostile: MCPConnection,
) -> None:
    section = MCPSection(hostile, title="Hostile", call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("bad_schema", {"x": 1})),
            tool_calls(tool_call("echo", {"text": "still here"})),
            text("done"),
        ]
    )

    response = evaluate(adapter, prompt_of(section))

    bad, good = response.tool_results
    assert not bad.result.success
    assert "the server's inputSchema is not valid JSON Schema" in bad.result.message
    assert "'nonsense'" in bad.result.message
    assert bad.result.value is None  # refused before the call: bad_schema never ran
    assert good.result.success
    assert good.result.value.text == "echo: still here"
    assert response.text == "done"
