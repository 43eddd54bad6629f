"""Fixtures for taskchat: an app over a SQLite file, a fake GitHub, a chat helper, a live server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
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


class Chat:
    """One conversation through ``POST /api/v1/chat``; every answer must be a 200."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.conversation_id: str | None = None
        self.last: dict[str, Any] = {}
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
            "/api/v1/chat",
            json={"conversation_id": self.conversation_id, **body},
            headers=self.headers,
        )
        assert response.status_code == 200, response.text
        self.last = response.json()
        self.conversation_id = self.last["conversation_id"]
        return self.last


@pytest.fixture
def chat(client: TestClient) -> Chat:
    return Chat(client)


@pytest.fixture
def new_chat() -> Callable[[TestClient], Chat]:
    """``new_chat(client)``: a conversation on another app (a restarted server, say)."""
    return Chat


def _tasks(client: TestClient) -> list[dict[str, Any]]:
    response = client.get("/api/v1/tasks")
    assert response.status_code == 200
    return list(response.json()["tasks"])


@pytest.fixture
def tasks() -> Callable[[TestClient], list[dict[str, Any]]]:
    """``tasks(client)``: every task, as ``GET /api/v1/tasks`` shows it."""
    return _tasks


class LiveServer:
    """A real uvicorn serving the app on a loopback port, in a thread of this process."""

    def __init__(self, app: FastAPI) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
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
def live_server(make_app: AppFactory) -> Iterator[LiveServer]:
    server = LiveServer(make_app()).start()
    yield server
    server.stop()
