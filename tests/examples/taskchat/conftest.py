"""Fixtures for taskchat: an app over a SQLite file, a fake GitHub, a chat helper (plain or
streamed), a model whose stream can be held, a live server."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("taskchat", reason="the taskchat example is not installed")

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from loopback import LoopbackServer

from affordance.adapters import ModelRequest
from affordance.testing import ScriptedAdapter
from affordance.testing.scripted import Responder, Step
from taskchat.app import create_app
from taskchat.settings import Settings

TODAY = date(2026, 3, 2)  # a Monday: "tomorrow" is 2026-03-03, "friday" 2026-03-06


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'taskchat.db'}"


@pytest.fixture
def github() -> Iterator[LoopbackServer]:
    """A fake api.github.com on loopback; script its routes with ``method="GET"``."""
    with LoopbackServer() as server:
        yield server


AppFactory = Callable[..., FastAPI]


@pytest.fixture
def make_app(database_url: str, github: LoopbackServer) -> Iterator[AppFactory]:
    """Builds apps over the same database file (a second one is a restarted server)."""
    clients: list[httpx.Client] = []

    def make(**settings: Any) -> FastAPI:
        http = httpx.Client()
        clients.append(http)
        options: dict[str, Any] = {
            "database_url": database_url,
            "github_api_url": github.base_url,
            **settings,
        }
        app_options = {k: options.pop(k) for k in ("adapter",) if k in options}
        return create_app(Settings(**options), github_http=http, today=lambda: TODAY, **app_options)

    yield make
    for http in clients:
        http.close()


@pytest.fixture
def client(make_app: AppFactory) -> Iterator[TestClient]:
    with TestClient(make_app()) as test_client:
        yield test_client


Event = tuple[str, dict[str, Any]]  # a server-sent event: its name and its JSON data


def read_events(body: str) -> list[Event]:
    """The events of a ``text/event-stream`` body, in order; comments (keep-alives) skipped."""
    events: list[Event] = []
    for block in body.split("\n\n"):
        name, data = "message", []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


@pytest.fixture
def sse_events() -> Callable[[str], list[Event]]:
    """``sse_events(body)``: the events of a ``text/event-stream`` body."""
    return read_events


class Chat:
    """One conversation through ``POST /api/v1/chat`` — or, with ``stream=True``, through
    ``POST /api/v1/chat/stream``, whose events are kept in ``events`` and whose final ``reply``
    event is the answer. Every answer must be a 200 (a stream must end with ``reply``)."""

    def __init__(self, client: TestClient, *, stream: bool = False) -> None:
        self.client = client
        self.stream = stream
        self.conversation_id: str | None = None
        self.last: dict[str, Any] = {}
        self.events: list[Event] = []
        self.headers: dict[str, str] = {}  # sent with every request

    def say(self, message: str) -> dict[str, Any]:
        return self._post({"message": message})

    def answer(self, answer: str, reason: str = "") -> dict[str, Any]:
        """Answer every pending confirmation the same way."""
        pending = self.last["pending_confirmations"]
        assert pending, "nothing waits for confirmation"
        return self._post(
            {"message": reason, "confirmations": {p["call_id"]: answer for p in pending}}
        )

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        response = self.client.post(
            "/api/v1/chat/stream" if self.stream else "/api/v1/chat",
            json={"conversation_id": self.conversation_id, **body},
            headers=self.headers,
        )
        assert response.status_code == 200, response.text
        if self.stream:
            assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
            self.events = read_events(response.text)
            name, final = self.events[-1]
            assert name == "reply", self.events[-1]
            self.last = final
        else:
            self.last = response.json()
        self.conversation_id = self.last["conversation_id"]
        return self.last


@pytest.fixture
def chat(client: TestClient) -> Chat:
    return Chat(client)


@pytest.fixture
def stream_chat(client: TestClient) -> Chat:
    return Chat(client, stream=True)


@pytest.fixture
def new_chat() -> Callable[..., Chat]:
    """``new_chat(client, stream=False)``: a conversation on another app (a restarted server,
    say)."""
    return Chat


class Gate:
    """Where a held stream waits: ``reached`` once its first piece is out, until ``release()``;
    ``ended`` once the stream is over, however it ended (finished, or closed by a cancel)."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()
        self.ended = threading.Event()

    def release(self) -> None:
        self.released.set()

    async def passage(self) -> None:
        self.reached.set()
        while not self.released.is_set():  # a cancellable wait; the test thread releases it
            await asyncio.sleep(0.005)


class HeldModel(ScriptedAdapter):
    """A scripted model whose streamed text can be held: after ``hold()``, the next turn with
    text stops after its first piece (``stream_chunk`` characters) until the gate is
    released, so a test sees a reply half-streamed without timing anything."""

    def __init__(
        self,
        steps: Iterable[Step] = (),
        *,
        responder: Responder | None = None,
        stream_chunk: int = 8,
    ) -> None:
        super().__init__(steps, responder=responder, stream_chunk=stream_chunk)
        self._gates: deque[Gate] = deque()

    def hold(self) -> Gate:
        """Hold the next turn that has text after its first piece."""
        gate = Gate()
        self._gates.append(gate)
        return gate

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        turn = self.send(request)
        gate = self._gates.popleft() if turn.text and self._gates else None
        # the deltas of exactly this turn, as the base class streams it (text pieces first)
        replay = ScriptedAdapter([turn], stream_chunk=self.stream_chunk).asend_stream(request)
        try:
            async for delta in replay:
                yield delta
                if gate is not None and not gate.reached.is_set():
                    await gate.passage()
        finally:
            await replay.aclose()  # type: ignore[attr-defined]
            if gate is not None:
                gate.ended.set()


def _tasks(client: TestClient) -> list[dict[str, Any]]:
    response = client.get("/api/v1/tasks")
    assert response.status_code == 200
    return list(response.json()["tasks"])


@pytest.fixture
def tasks() -> Callable[[TestClient], list[dict[str, Any]]]:
    """``tasks(client)``: every task, as ``GET /api/v1/tasks`` shows it."""
    return _tasks


class LiveServer:
    """A real uvicorn serving the app on a loopback port (``0``: a free one), in a thread of
    this process."""

    def __init__(self, app: FastAPI, port: int = 0) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", port))
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> LiveServer:
        self._thread.start()
        for _ in range(1000):  # at most ~10 s
            if self._server.started or not self._thread.is_alive():
                break
            time.sleep(0.01)
        if not self._server.started:
            raise RuntimeError("uvicorn did not start")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()


@pytest.fixture
def held_model() -> type[HeldModel]:
    """``held_model(steps, responder=..., stream_chunk=...)``, then ``model.hold()``."""
    return HeldModel


@pytest.fixture
def live_server(make_app: AppFactory) -> Iterator[Callable[..., LiveServer]]:
    """``live_server(port=0, **app_options)``: a started server over
    ``make_app(**app_options)`` (on ``port``: a stopped server's, to restart it)."""
    servers: list[LiveServer] = []

    def start(*, port: int = 0, **options: Any) -> LiveServer:
        servers.append(LiveServer(make_app(**options), port).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop()
