"""Helpers of the ``affordance_mcp`` client tests: the server scripts, prompts around a section,
and bounded waits (no test of this directory may hang: every wait here has a limit).

The servers are real processes speaking real MCP: the scripts in ``servers/`` over stdio or
Streamable HTTP, and the third-party ``mcp-server-time``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from affordance import MarkdownSection, PromptResponse, PromptTemplate, Section, ToolInvoked
from affordance.runtime.model.messages import ToolResultMessage
from affordance.testing import ScriptedAdapter
from affordance_mcp import MCPConnection

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
TOOLBOX = SERVERS / "toolbox.py"
HOSTILE = SERVERS / "hostile.py"
MUTE = SERVERS / "mute.py"
LEGACY = SERVERS / "legacy.py"

CONNECT_TIMEOUT = 5.0
"""Generous for a Python server's start on a busy machine, short enough to fail a test fast."""

CALL_TIMEOUT = 10.0
"""Every test section's ``call_timeout``: a call that hangs fails the test instead."""

WAIT = 20.0
"""The most any single step of a test waits."""


def toolbox_connection(*args: str, connect_timeout: float = CONNECT_TIMEOUT) -> MCPConnection:
    """A connection (not yet connected) to a toolbox server of its own."""
    return MCPConnection.stdio(
        sys.executable, (str(TOOLBOX), *args), label="toolbox", connect_timeout=connect_timeout
    )


def prompt_of(*sections: Section[Any], task: str = "Use the tools.") -> PromptTemplate[Any]:
    """A prompt: a task, then ``sections``."""
    return PromptTemplate(
        ns="tests-mcp-client",
        key="task",
        sections=[MarkdownSection(title="Task", template=task), *sections],
    )


def within(seconds: float, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``work(*args, **kwargs)`` run in a daemon thread; fails the test if it takes longer
    than ``seconds`` (the thread is abandoned, so a hang cannot block the test run)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = work(*args, **kwargs)
        except BaseException as error:  # handed back to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name=f"bounded {work.__name__}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AssertionError(f"{work.__name__} did not return within {seconds:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def evaluate(adapter: ScriptedAdapter, prompt: PromptTemplate[Any], **options: Any) -> Any:
    """``adapter.evaluate(prompt, **options)``, bounded."""
    return within(WAIT, adapter.evaluate, prompt, **options)


def run_async(body: Callable[[], Awaitable[T]], timeout: float = WAIT) -> T:
    """Run an async test body on a fresh event loop, failing after ``timeout`` seconds."""

    async def bounded() -> T:
        return await asyncio.wait_for(body(), timeout)

    return asyncio.run(bounded())


def wait_until(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``condition`` until it holds; fail the test naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        time.sleep(0.02)


async def await_until(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """:func:`wait_until` for async code: polls without blocking the loop."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:g} s waiting until {what}")
        await asyncio.sleep(0.02)


def is_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def wait_gone(pid: int, timeout: float = 10.0) -> None:
    wait_until(lambda: not is_alive(pid), f"process {pid} exited", timeout)


def children_running(marker: str) -> list[int]:
    """The live child processes of this test process whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and marker in command and is_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def server_pid(connection: MCPConnection) -> int:
    """The process id of a toolbox server, asked over the connection (its ``whoami`` tool)."""

    async def ask() -> int:
        answer = await connection.call("whoami", {})
        return int(answer.structured_content["result"])

    return run_async(ask)


def calls_made(connection: MCPConnection) -> list[str]:
    """The tools a toolbox server ran so far (its ``calls_made`` tool)."""

    async def ask() -> list[str]:
        answer = await connection.call("calls_made", {})
        return list(answer.structured_content["result"])

    return run_async(ask)


def invoked(response: PromptResponse[Any]) -> list[ToolInvoked]:
    """The ``ToolInvoked`` events of ``response``'s run, in order."""
    return [
        event for event in response.session.slice(ToolInvoked) if event.run_id == response.run_id
    ]


def tool_messages(adapter: ScriptedAdapter) -> list[ToolResultMessage]:
    """The tool results the model was sent in the last request: what the provider got."""
    return [
        message
        for message in adapter.requests[-1].messages
        if isinstance(message, ToolResultMessage)
    ]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HTTPServer:
    """A toolbox server on Streamable HTTP on a loopback port, as a subprocess."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(TOOLBOX), "--http", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._accepts, f"port {self.port} accepts connections", CONNECT_TIMEOUT * 2)

    def _accepts(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"the HTTP server exited with {self.process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
        except OSError:
            return False
        return True

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()
