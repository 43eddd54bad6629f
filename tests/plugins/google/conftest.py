"""Shared pieces of the Google adapter tests: the loopback server, real ``google-genai`` clients
pointed at it, and a small weather prompt whose tools record their calls.

Every ``GOOGLE_*`` and ``GEMINI_*`` variable is removed around each test: each of them can
redirect the SDK (Vertex AI, another base URL or API version, replay mode).
"""

from __future__ import annotations

import os
import ssl
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from google import genai
from google.genai import types
from loopback import LoopbackServer, google_server

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
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


@dataclass(frozen=True)
class WeatherParams:
    city: str
    unit: str = "c"


@dataclass
class Calls:
    """``(tool, city)`` per call (the async driver runs a turn's calls concurrently)."""

    seen: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, value: Any) -> None:
        with self.lock:
            self.seen.append(value)


@pytest.fixture
def calls() -> Calls:
    return Calls()


def weather_tools(calls: Calls) -> list[Tool[Any, Any]]:
    def get_weather(params: WeatherParams) -> ToolResult[str]:
        calls.add(("get_weather", params.city))
        return ToolResult(message=f"{params.city}: sunny, 21 {params.unit}", value=None)

    def flaky(params: WeatherParams) -> ToolResult[str]:
        calls.add(("flaky", params.city))
        raise RuntimeError("backend down")

    return [
        Tool[WeatherParams, str](
            name="get_weather", description="Current weather for a city.", handler=get_weather
        ),
        Tool[WeatherParams, str](name="flaky", description="Always fails.", handler=flaky),
    ]


@pytest.fixture
def make_prompt(calls: Calls) -> Callable[..., PromptTemplate[Any]]:
    """The weather prompt: ``get_weather`` succeeds and records; ``flaky`` raises. Keyword
    arguments go to ``PromptTemplate`` (e.g. ``output_type=``)."""
    tools = weather_tools(calls)

    def make(**template: Any) -> PromptTemplate[Any]:
        section = MarkdownSection(title="Task", template="What is the weather?", tools=tools)
        return PromptTemplate(ns="tests", key="weather", sections=[section], **template)

    return make


@pytest.fixture
def prompt(make_prompt: Callable[..., PromptTemplate[Any]]) -> PromptTemplate[Any]:
    return make_prompt()
