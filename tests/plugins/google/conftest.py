"""Shared pieces of the Google adapter tests: the loopback server, real ``google-genai`` clients
pointed at it, and the weather prompt (tests/fixtures/weather.py) whose tools record their calls.

Every ``GOOGLE_*`` and ``GEMINI_*`` variable is removed around each test: each of them can
redirect the SDK (Vertex AI, another base URL or API version, replay mode).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google import genai
from google.genai import types
from loopback import LoopbackServer, google_server

from affordance.testing import FakeClock
from affordance_google import GoogleAdapter

MODEL = "gemini-test"


@pytest.fixture(autouse=True)
def _no_google_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("GOOGLE_", "GEMINI_")):
            monkeypatch.delenv(name)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with google_server() as loopback:
        yield loopback


@pytest.fixture
def new_client() -> Callable[..., genai.Client]:
    """``new_client(server, **http_options)``: a ``genai.Client`` of ``server`` (not closed for
    you)."""

    def make(server: LoopbackServer, **options: Any) -> genai.Client:
        return genai.Client(api_key="test", http_options=http_options(server, **options))

    return make


def http_options(server: LoopbackServer, **options: Any) -> types.HttpOptions:
    """Options for a client of ``server``: plain HTTP needs no CA bundle, and skipping its load
    (for the websocket client too) makes a client cost ~1 ms instead of ~17 ms."""
    return types.HttpOptions(
        base_url=server.base_url,
        client_args={"verify": False},
        async_client_args={"verify": False, "ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)},
        **options,
    )


class Clients:
    """Real SDK clients for the loopback server, closed at teardown (the sync side; an async
    side is closed by its test, inside the event loop that used it)."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self._opened: list[genai.Client] = []

    def client(self, **options: Any) -> genai.Client:
        client = genai.Client(api_key="test", http_options=http_options(self.server, **options))
        self._opened.append(client)
        return client

    def close(self) -> None:
        for client in self._opened:
            client.close()


@pytest.fixture
def clients(server: LoopbackServer) -> Iterator[Clients]:
    made = Clients(server)
    yield made
    made.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_adapter(clients: Clients, clock: FakeClock) -> Callable[..., GoogleAdapter]:
    """A fresh adapter on a fresh client (``aio=True``: given only the async side)."""

    def make(*, aio: bool = False, client_options: Any = None, **options: Any) -> GoogleAdapter:
        client = clients.client(**(client_options or {}))
        options.setdefault("clock", clock)
        return GoogleAdapter(MODEL, client=client.aio if aio else client, **options)

    return make
