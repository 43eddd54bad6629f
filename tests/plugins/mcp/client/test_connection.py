"""``MCPConnection`` against servers that die, never answer, change their tools, or are closed
from somewhere else than where they were opened. Each test here starts its own server (tagged
on its command line, so the test can find the process) because it kills or closes it."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_client_support import (
    CALL_TIMEOUT,
    LEGACY,
    MUTE,
    WAIT,
    await_until,
    children_running,
    evaluate,
    invoked,
    prompt_of,
    run_async,
    server_pid,
    toolbox_connection,
    wait_gone,
    wait_until,
    within,
)

from affordance import PromptResponse
from affordance.runtime.model import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPConnectError, MCPConnection, MCPSection


def section_of(connection: MCPConnection) -> MCPSection:
    return MCPSection(connection, title="Toolbox", call_timeout=CALL_TIMEOUT)


def rendered_names(section: MCPSection) -> set[str]:
    return {item.name for item in within(WAIT, prompt_of(section).render).tools}


# -- the server dies ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_server_killed_between_turns_is_reconnected_before_the_next_call() -> None:
    connection = toolbox_connection("--tag", "killed-between-turns")
    section = section_of(connection)

    def kill_the_server(request: ModelRequest) -> ProviderTurn:
        pid = int(request.messages[-1].content)  # what whoami answered
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not connection.connected, "the connection saw its server die")
        return tool_calls(tool_call("record", {"note": "after the kill"}))

    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("whoami")),
            kill_the_server,
            tool_calls(tool_call("whoami")),
            text("ok"),
        ]
    )
    try:
        response = evaluate(adapter, prompt_of(section))
    finally:
        within(WAIT, connection.close)

    first, recorded, second = response.tool_results
    assert all(item.result.success for item in response.tool_results)
    assert recorded.result.value.text == "recorded 'after the kill' 1 time(s)"
    assert invoked(response)[1].attempts == 1  # sent once, on the new session: no replay
    assert connection.connects == 2
    assert first.result.value.structured != second.result.value.structured  # a new process


def _kill_during_the_call(
    tool: str, tmp_path: Path, tag: str
) -> tuple[PromptResponse[Any], list[str], int]:
    """Run ``tool`` (which stalls on its first call) and SIGKILL its server while it stalls.
    Answers the run's response, the pids that started the tool, and the connection's
    ``connects``."""
    connection = toolbox_connection("--tag", tag)
    section = section_of(connection)
    marker, log = tmp_path / "started", tmp_path / "calls.log"
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call(tool, {"marker": str(marker), "log": str(log)})),
            text("done"),
        ]
    )

    async def body() -> PromptResponse[Any]:
        run = asyncio.create_task(adapter.aevaluate(prompt_of(section)))
        await await_until(marker.exists, f"{tool} started on the server")
        os.kill(int(log.read_text().split()[0]), signal.SIGKILL)
        return await run

    try:
        response = run_async(body)
    finally:
        within(WAIT, connection.close)
    return response, log.read_text().split(), connection.connects


def test_a_call_in_flight_when_its_server_dies_may_have_run_and_is_not_replayed(
    tmp_path: Path,
) -> None:
    response, started, connects = _kill_during_the_call("slow_write", tmp_path, "killed-write")

    (result,) = response.tool_results
    assert not result.result.success
    assert result.result.value.code == "server_gone"
    assert result.result.message.endswith(
        "went away while a request was in flight; the call may have run, so it was not sent again"
    )
    assert result.result.value.recover_action == (
        "check whether it took effect before calling it again"
    )
    assert len(started) == 1  # never sent to a second server
    assert connects == 1
    assert response.text == "done"


@pytest.mark.slow
def test_a_read_only_idempotent_call_in_flight_is_replayed_on_a_new_server(
    tmp_path: Path,
) -> None:
    response, started, connects = _kill_during_the_call("slow_read", tmp_path, "killed-read")

    (result,) = response.tool_results
    assert result.result.success
    first, second = started
    assert first != second
    assert result.result.value.text == f"finished in process {second}"
    assert invoked(response)[0].attempts == 2
    assert connects == 2


# -- connecting --------------------------------------------------------------------------


@pytest.mark.slow
def test_a_server_that_never_answers_initialize_is_a_connect_error_within_the_timeout() -> None:
    section = MCPSection.stdio(
        sys.executable, [str(MUTE), "never-answers"], title="Mute", connect_timeout=1.0
    )
    prompt = prompt_of(section)
    adapter = ScriptedAdapter([text("never sent")])

    started = time.monotonic()
    with pytest.raises(MCPConnectError, match="did not finish connecting within 1 s"):
        evaluate(adapter, prompt)
    elapsed = time.monotonic() - started

    assert 1.0 <= elapsed < 4.0
    assert adapter.sent == 0  # the render raised: no request was made
    wait_until(lambda: not children_running("never-answers"), "the mute server was stopped")
    with pytest.raises(MCPConnectError, match=r"mute\.py.* did not finish connecting"):
        within(WAIT, prompt.render)
    within(WAIT, section.close)
    wait_until(lambda: not children_running("never-answers"), "the second one was stopped too")


# -- the tool list changes ---------------------------------------------------------------


def test_a_tool_the_server_adds_is_listed_at_the_next_render() -> None:
    connection = toolbox_connection("--tag", "list-changed")
    section = section_of(connection)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("add_tool", {"name": "late_tool"})),
            text("added"),
            tool_calls(tool_call("late_tool")),
            text("called"),
        ]
    )
    try:
        assert "late_tool" not in rendered_names(section)
        evaluate(adapter, prompt_of(section))
        wait_until(lambda: "late_tool" in rendered_names(section), "late_tool was listed", 5.0)
        response = evaluate(adapter, prompt_of(section))
    finally:
        within(WAIT, connection.close)

    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.text == "late_tool was added at run time"
    assert connection.connects == 1  # listed again on the same session


def test_a_list_changed_notification_of_an_older_server_is_heeded() -> None:
    connection = MCPConnection.stdio(sys.executable, (str(LEGACY),), label="legacy")
    section = section_of(connection)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("add_tool", {"name": "legacy_extra"})), text("added")]
    )
    try:
        assert rendered_names(section) == {"add_tool"}
        evaluate(adapter, prompt_of(section))
        wait_until(
            lambda: rendered_names(section) == {"add_tool", "legacy_extra"},
            "legacy_extra was listed",
            5.0,
        )
    finally:
        within(WAIT, connection.close)
    assert connection.connects == 1


def test_a_tool_the_server_adds_is_listed_inside_async_with_section() -> None:
    """The session's loop is the caller's, where a render cannot wait: the change is listed
    anew at once on that loop, and a later render shows it."""
    connection = toolbox_connection("--tag", "list-changed-async")
    section = section_of(connection)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("add_tool", {"name": "async_late"})),
            text("added"),
            tool_calls(tool_call("async_late")),
            text("called"),
        ]
    )

    prompt = prompt_of(section)

    def listed() -> bool:
        return "async_late" in {item.name for item in prompt.render().tools}

    async def body() -> PromptResponse[Any]:
        async with section:
            await adapter.aevaluate(prompt)
            await await_until(listed, "async_late was listed", 5.0)
            return await adapter.aevaluate(prompt)

    response = run_async(body)

    assert response.tool_results[0].result.success


# -- closing from elsewhere --------------------------------------------------------------


def test_close_from_another_task_than_the_one_that_connected() -> None:
    connection = toolbox_connection("--tag", "close-other-task")

    async def body() -> int:
        async def opener() -> None:
            await connection.aconnect()

        await asyncio.create_task(opener())
        (pid,) = children_running("close-other-task")
        await asyncio.create_task(connection.aclose())
        return pid

    pid = run_async(body)

    wait_gone(pid)
    assert not connection.connected


def test_close_from_another_thread_than_the_one_that_connected() -> None:
    connection = toolbox_connection("--tag", "close-other-thread")
    within(WAIT, connection.connect)
    pid = server_pid(connection)

    closer = threading.Thread(target=connection.close)
    closer.start()
    closer.join(WAIT)

    assert not closer.is_alive()
    wait_gone(pid)
    assert not connection.connected


def test_close_from_another_loop_after_the_connecting_loop_ended() -> None:
    connection = toolbox_connection("--tag", "close-after-loop")

    async def connect() -> None:
        await connection.aconnect()

    run_async(connect)  # asyncio.run closes its loop, and the session with it
    pids = children_running("close-after-loop")

    run_async(connection.aclose)

    for pid in pids:
        wait_gone(pid)
    assert not connection.connected


def test_close_from_another_loop_while_the_connecting_loop_runs_in_another_thread() -> None:
    connection = toolbox_connection("--tag", "close-running-loop")
    home = asyncio.new_event_loop()
    runner = threading.Thread(target=home.run_forever, daemon=True)
    runner.start()
    try:
        asyncio.run_coroutine_threadsafe(connection.aconnect(), home).result(WAIT)
        pid = server_pid(connection)

        run_async(connection.aclose)

        wait_gone(pid)
        assert not connection.connected
    finally:
        home.call_soon_threadsafe(home.stop)
        runner.join(WAIT)
        home.close()


def test_close_from_another_loop_while_the_connecting_loop_is_idle() -> None:
    connection = toolbox_connection("--tag", "close-idle-loop")
    home = asyncio.new_event_loop()
    try:
        home.run_until_complete(asyncio.wait_for(connection.aconnect(), WAIT))
        (pid,) = children_running("close-idle-loop")
        assert server_pid(connection) == pid  # a call from another loop reaches it too

        run_async(connection.aclose)

        wait_gone(pid)
        assert not connection.connected
    finally:
        home.close()


def test_sync_close_while_the_connecting_loop_is_idle() -> None:
    connection = toolbox_connection("--tag", "sync-close-idle-loop")
    home = asyncio.new_event_loop()
    try:
        home.run_until_complete(asyncio.wait_for(connection.aconnect(), WAIT))
        (pid,) = children_running("sync-close-idle-loop")

        within(WAIT, connection.close)

        wait_gone(pid)
    finally:
        home.close()


def test_closing_a_connection_never_opened_does_nothing() -> None:
    connection = toolbox_connection("--tag", "never-opened")

    within(WAIT, connection.close)
    run_async(connection.aclose)

    assert connection.connects == 0
    assert children_running("never-opened") == []
