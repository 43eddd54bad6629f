"""``MCPSection.http``: the SDK's own server over Streamable HTTP on loopback (uvicorn, in a
subprocess), with headers on every request, and a server that restarts under a live section."""

from __future__ import annotations

from typing import Any

from mcp_client_support import (
    CALL_TIMEOUT,
    CONNECT_TIMEOUT,
    WAIT,
    HTTPServer,
    evaluate,
    prompt_of,
    run_async,
    wait_until,
    within,
)

from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPSection


def http_section(server: HTTPServer, **options: Any) -> MCPSection:
    return MCPSection.http(
        server.url,
        title="Remote",
        connect_timeout=CONNECT_TIMEOUT,
        call_timeout=CALL_TIMEOUT,
        **options,
    )


def rendered_names(section: MCPSection) -> set[str]:
    return {item.name for item in within(WAIT, prompt_of(section).render).tools}


def test_tools_are_listed_and_called_over_http(http_server: HTTPServer) -> None:
    section = http_section(http_server)
    adapter = ScriptedAdapter([tool_calls(tool_call("weather", {"city": "Lima"})), text("ok")])
    try:
        assert {"weather", "record", "echo_header"} <= rendered_names(section)
        response = evaluate(adapter, prompt_of(section))
        waiting = run_async(lambda: ScriptedAdapter([text("x")]).aevaluate(prompt_of(section)))
    finally:
        within(WAIT, section.close)

    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.structured == {"city": "Lima", "celsius": 21.5}
    assert result.result.value.server == http_server.url
    assert waiting.text == "x"


def test_headers_reach_the_server_with_every_request(http_server: HTTPServer) -> None:
    with_headers = http_section(http_server, headers={"X-Team": "blue"})
    without = http_section(http_server)
    script = [tool_calls(tool_call("echo_header", {"name": "X-Team"})), text("ok")]
    try:
        sent = evaluate(ScriptedAdapter(script), prompt_of(with_headers))
        absent = evaluate(ScriptedAdapter(script), prompt_of(without))
    finally:
        within(WAIT, with_headers.close)
        within(WAIT, without.close)

    assert sent.tool_results[0].result.value.text == "blue"
    assert absent.tool_results[0].result.value.text == "<none>"


def test_a_restarted_server_serves_the_next_run(http_server: HTTPServer) -> None:
    section = http_section(http_server)
    before = ScriptedAdapter([tool_calls(tool_call("whoami")), text("ok")])
    after = ScriptedAdapter([tool_calls(tool_call("whoami")), text("ok")])
    try:
        first = evaluate(before, prompt_of(section))
        http_server.restart()  # killed, then started again on the same port
        second = evaluate(after, prompt_of(section))
    finally:
        within(WAIT, section.close)

    old, new = (response.tool_results[0].result for response in (first, second))
    assert old.success
    assert new.success
    assert old.value.structured != new.value.structured  # answered by the new process


def test_after_a_restart_the_tool_list_follows_the_new_server(http_server: HTTPServer) -> None:
    section = http_section(http_server)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("add_tool", {"name": "before_restart"})),
            text("added"),
            tool_calls(tool_call("add_tool", {"name": "after_restart"})),
            text("added"),
        ]
    )
    try:
        evaluate(adapter, prompt_of(section))
        wait_until(lambda: "before_restart" in rendered_names(section), "before_restart listed")
        http_server.restart()  # the new process has only the tools it starts with
        evaluate(adapter, prompt_of(section))
        wait_until(lambda: "after_restart" in rendered_names(section), "after_restart listed")
        names = rendered_names(section)
    finally:
        within(WAIT, section.close)

    assert "before_restart" not in names
