"""A served prompt over the real transports, each server a subprocess, each client the official
``mcp`` client: stdio (``affordance mcp serve`` and ``affordance_mcp.serve``), and streamable
HTTP on a free loopback port (one server for the module)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import mcp
import pytest
from mcp import StdioServerParameters, types
from mcp_serve_board import build_prompt
from mcp_serve_support import HERE, PROTOCOL_OF_MODE, User, run, text_of

from affordance_mcp.serving import serve_async

TOOLS = ["get_task", "add_task", "delete_task", "export_board", "ask_model", "board_stats"]
SERVE_COMMAND = [sys.executable, "-m", "affordance", "mcp", "serve", "mcp_serve_board:prompt"]


def test_the_command_serves_the_prompt_over_stdio() -> None:
    user = User()
    server = StdioServerParameters(command=SERVE_COMMAND[0], args=SERVE_COMMAND[1:], cwd=HERE)

    async def test() -> None:
        async with mcp.Client(server, elicitation_callback=user) as client:
            assert client.protocol_version == PROTOCOL_OF_MODE["auto"]
            assert [tool.name for tool in (await client.list_tools()).tools] == TOOLS
            added = await client.call_tool("add_task", {"title": "Call the bank"})
            deleted = await client.call_tool("delete_task", {"task_id": 1})
            looked_up = await client.call_tool("get_task", {"task_id": 1})
            failed = await client.call_tool("export_board", {"fmt": "csv"})

        assert added.structured_content == {
            "task_id": 3,
            "title": "Call the bank",
            "priority": "medium",
        }
        assert text_of(deleted) == "Deleted task #1."
        assert looked_up.is_error
        assert "there is no task #1" in text_of(looked_up)
        assert failed.is_error

    run(test)
    assert len(user.questions) == 1


def test_serve_runs_a_prompt_over_stdio_for_a_2025_client() -> None:
    """The Python API, and a server that elicits mid-call (2025-11-25)."""
    user = User("decline")
    script = "from mcp_serve_board import prompt\nfrom affordance_mcp import serve\nserve(prompt)"
    server = StdioServerParameters(command=sys.executable, args=["-c", script], cwd=HERE)

    async def test() -> None:
        async with mcp.Client(server, mode="legacy", elicitation_callback=user) as client:
            assert client.protocol_version == PROTOCOL_OF_MODE["legacy"]
            declined = await client.call_tool("delete_task", {"task_id": 1})
            still_there = await client.call_tool("get_task", {"task_id": 1})

        assert text_of(declined) == "The user declined to run 'delete_task'; it was not run."
        assert not still_there.is_error

    run(test)
    assert len(user.questions) == 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``affordance mcp serve --transport streamable-http`` on a free loopback port."""
    port = free_port()
    log = tmp_path_factory.mktemp("mcp-http") / "stderr.txt"
    with Path(log).open("w") as stderr:
        process = subprocess.Popen(
            [*SERVE_COMMAND, "--transport", "streamable-http", "--port", str(port)],
            cwd=HERE,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        deadline = time.monotonic() + 10
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited with {process.returncode}: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the server did not listen within 10 s: {log.read_text()}")
                time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def test_streamable_http_serves_the_prompt_to_a_2026_client(http_url: str) -> None:
    user = User()

    async def test() -> None:
        async with mcp.Client(http_url, elicitation_callback=user) as client:
            assert client.protocol_version == PROTOCOL_OF_MODE["auto"]
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert list(listed) == TOOLS
            assert listed["get_task"].annotations == types.ToolAnnotations(
                title="Get task", read_only_hint=True, destructive_hint=False, idempotent_hint=True
            )
            task = await client.call_tool("add_task", {"title": "Pay rent", "priority": "high"})
            invalid = await client.call_tool("get_task", {"task_id": "first"})
            deleted = await client.call_tool("delete_task", {"task_id": 2})

        assert task.structured_content is not None
        assert task.structured_content["title"] == "Pay rent"
        assert invalid.is_error
        assert text_of(invalid).startswith("Invalid arguments for 'get_task'")
        assert text_of(deleted) == "Deleted task #2."

    run(test)
    assert len(user.questions) == 1


def test_streamable_http_asks_a_2025_client_mid_call_and_refuses_one_that_cannot_answer(
    http_url: str,
) -> None:
    user = User("cancel")

    async def test() -> None:
        async with mcp.Client(http_url, mode="legacy", elicitation_callback=user) as client:
            assert client.protocol_version == PROTOCOL_OF_MODE["legacy"]
            cancelled = await client.call_tool("delete_task", {"task_id": 1})
        async with mcp.Client(http_url, mode="legacy") as client:
            refused = await client.call_tool("delete_task", {"task_id": 1})

        assert text_of(cancelled).startswith("The user declined to run 'delete_task'")
        assert "cannot ask: it does not support form elicitation" in text_of(refused)

    run(test)
    assert len(user.questions) == 1


def test_an_unknown_transport_is_refused() -> None:
    async def test() -> None:
        with pytest.raises(ValueError, match="transport must be one of stdio, streamable-http"):
            await serve_async(build_prompt(), transport="sse")  # type: ignore[arg-type]

    run(test)
