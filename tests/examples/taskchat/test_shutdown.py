"""``taskchat serve`` stopped with SIGTERM: a real server process over a SQLite file, its offline
model paced (``--offline-pace``) so that a chat request takes a second or more.

It stops accepting connections, lets the requests in flight finish — plain or streamed, each
answered and stored as always — and exits 0; a request still running when the grace period
(``--shutdown-grace``) ends is cut off with a ``503 shutting_down`` (a stream: its final
``error`` event), named in the log, and the server still exits 0 — the app cut them off, not
uvicorn's backstop.

A request is known to be in flight, not merely sent, by what the server says of it: a log line
carrying its request id (its tool call), or a stream's events.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

Event = tuple[str, dict[str, Any]]
pytestmark = pytest.mark.slow

READY = re.compile(r"Uvicorn running on (http://\S+)")


class ServerProcess:
    """``taskchat serve`` on a free loopback port, in a process of its own; its log (stderr) is
    collected line by line."""

    def __init__(self, database_url: str, *options: str) -> None:
        command = [
            sys.executable,
            "-c",
            "import sys; from taskchat.cli import main; sys.exit(main())",
        ]
        self.process = subprocess.Popen(
            [*command, "serve", "--port", "0", "--database-url", database_url, *options],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.url = self.wait_for_log(READY, timeout=30)[1]

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._lines.append(line)

    @property
    def log(self) -> str:
        return "".join(self._lines)

    def wait_for_log(self, pattern: re.Pattern[str] | str, timeout: float = 10) -> re.Match[str]:
        """The first match of ``pattern`` (a regex, or a literal text) in the log, once there."""
        regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = regex.search(self.log)
            if found is not None:
                return found
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.01)
        raise AssertionError(f"no {regex.pattern!r} in the server's log:\n{self.log}")

    def terminate(self) -> float:
        """Send SIGTERM; the time it was sent."""
        self.process.send_signal(signal.SIGTERM)
        return time.monotonic()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self._reader.join(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture
def serve(database_url: str) -> Iterator[Callable[..., ServerProcess]]:
    """``serve(*options)``: a started ``taskchat serve`` over the test's database."""
    started: list[ServerProcess] = []

    def start(*options: str) -> ServerProcess:
        started.append(ServerProcess(database_url, *options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


async def _plain(client: httpx.AsyncClient, message: str, request_id: str) -> httpx.Response:
    return await client.post(
        "/api/v1/chat", json={"message": message}, headers={"X-Request-ID": request_id}
    )


async def _stream(
    client: httpx.AsyncClient,
    message: str,
    heard: asyncio.Queue[Event],
    read_events: Callable[[str], list[Event]],
) -> list[Event]:
    """The stream's events, each put on ``heard`` too as it arrives."""
    events: list[Event] = []
    async with client.stream("POST", "/api/v1/chat/stream", json={"message": message}) as answer:
        assert answer.status_code == 200
        buffer = ""
        async for text in answer.aiter_text():
            buffer += text
            complete, _, buffer = buffer.rpartition("\n\n")
            for event in read_events(complete):
                events.append(event)
                heard.put_nowait(event)
    return events


async def _until(heard: asyncio.Queue[Event], name: str) -> Event:
    while True:
        event = await asyncio.wait_for(heard.get(), timeout=10)
        if event[0] == name:
            return event


async def _refused(url: str, server: ServerProcess) -> bool:
    """Whether a new connection is refused while the server still runs (tried for 2 s)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            async with httpx.AsyncClient(base_url=url, timeout=2) as fresh:
                await fresh.get("/api/v1/tools")
        except httpx.ConnectError:
            return server.process.poll() is None
        except httpx.TransportError:
            pass  # accepted as the server closed: not yet a refusal
        await asyncio.sleep(0.02)
    return False


def test_sigterm_lets_the_requests_in_flight_finish_then_exits_0(
    serve: Callable[..., ServerProcess],
    make_app: Callable[..., Any],
    sse_events: Callable[[str], list[Event]],
) -> None:
    server = serve("--offline-pace", "0.1")  # a create: ~1.4 s, ~0.8 s of it after the tool call

    async def scenario() -> tuple[httpx.Response, list[Event], bool, float]:
        heard: asyncio.Queue[Event] = asyncio.Queue()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            plain = asyncio.ensure_future(_plain(client, "add a task to pay rent", "slow-plain"))
            stream = asyncio.ensure_future(
                _stream(client, "add a task to buy bread", heard, sse_events)
            )
            await asyncio.to_thread(server.wait_for_log, "[slow-plain]")  # its tool call
            await _until(heard, "tool_call_finished")
            terminated = server.terminate()
            refused = await _refused(server.url, server)
            return await plain, await stream, refused, terminated

    answer, events, refused, terminated = asyncio.run(scenario())
    code = server.process.wait(timeout=15)
    took = time.monotonic() - terminated

    assert refused, "a new connection was accepted during the drain"
    assert answer.status_code == 200, answer.text
    assert answer.json()["reply"].startswith("Created task #")
    name, reply = events[-1]
    assert name == "reply", events[-1]
    assert reply["reply"].startswith("Created task #")
    assert code == 0, server.log
    assert took < 10  # within the default grace: the drain ended when the requests did
    assert "shut down: every request in flight finished" in server.log
    with TestClient(make_app()) as restarted:  # both were stored, as without the shutdown
        tasks = restarted.get("/api/v1/tasks").json()["tasks"]
        assert sorted(t["title"] for t in tasks) == ["Buy bread", "Pay rent"]
        for finished in (answer.json(), reply):
            stored = restarted.get(f"/api/v1/conversations/{finished['conversation_id']}").json()
            assert stored["messages"][-1] == {
                "role": "assistant",
                "text": finished["reply"],
                "name": None,
                "success": None,
                "declined": None,
            }


def test_a_request_outliving_the_grace_is_cut_off_with_503_and_the_server_still_exits_0(
    serve: Callable[..., ServerProcess],
    database_url: str,
    sse_events: Callable[[str], list[Event]],
) -> None:
    # a create: its tool call after ~1.5 s, then ~2 s more; the grace ends long before
    server = serve("--offline-pace", "0.3", "--shutdown-grace", "1")

    async def scenario() -> tuple[httpx.Response, list[Event], float]:
        heard: asyncio.Queue[Event] = asyncio.Queue()
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            plain = asyncio.ensure_future(_plain(client, "add a task to pay rent", "cut-plain"))
            stream = asyncio.ensure_future(
                _stream(client, "add a task to buy bread", heard, sse_events)
            )
            await asyncio.to_thread(server.wait_for_log, "[cut-plain]")  # its tool call
            await _until(heard, "tool_call_finished")
            terminated = server.terminate()
            return await plain, await stream, terminated

    answer, events, terminated = asyncio.run(scenario())
    code = server.process.wait(timeout=15)
    took = time.monotonic() - terminated

    message = "the server is shutting down and stopped this request before it finished"
    assert answer.status_code == 503
    assert answer.json() == {"error": {"code": "shutting_down", "message": message}}
    assert events[-1] == (
        "error",
        {"status": 503, "error": {"code": "shutting_down", "message": message}},
    )
    assert [name for name, _ in events].count("reply") == 0
    assert code == 0, server.log
    assert 1 <= took < 5
    assert re.search(r"\[cut-plain\] cut off POST /api/v1/chat: the shutdown grace", server.log)
    assert re.search(r"cut off POST /api/v1/chat/stream: the shutdown grace", server.log)
    assert "shut down: 2 request(s) cut off at the end of the 1 s grace" in server.log
    assert "timeout graceful shutdown exceeded" not in server.log  # uvicorn's backstop
    # chat.py's rule for a request that does not finish: its tool calls ran (the tasks exist),
    # nothing of its run was stored (no conversation), so the conversation can be sent again
    path = database_url.removeprefix("sqlite:///")
    with closing(sqlite3.connect(path)) as db:
        titles = sorted(title for (title,) in db.execute("SELECT title FROM tasks"))
        (conversations,) = db.execute("SELECT count(*) FROM conversations").fetchone()
    assert titles == ["Buy bread", "Pay rent"]
    assert conversations == 0
