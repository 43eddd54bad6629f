"""Shared pieces of the OpenAI adapter tests: the loopback server, real SDK clients pointed at
it, and a small weather prompt whose tools record their calls."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import openai
import pytest
from loopback import LoopbackServer, openai_server

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


class Clients:
    """Real SDK clients for the loopback server. Sync ones are closed at teardown; an async one
    is returned unopened, for ``async with`` inside the test's event loop."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self._opened: list[openai.OpenAI] = []

    def sync(self, max_retries: int = 0, **options: Any) -> openai.OpenAI:
        # Plain HTTP needs no CA bundle; skipping its load saves ~40 ms per client.
        client = openai.OpenAI(
            base_url=self.server.base_url,
            api_key="test",
            max_retries=max_retries,
            http_client=openai.DefaultHttpxClient(verify=False),
            **options,
        )
        self._opened.append(client)
        return client

    def async_(self, max_retries: int = 0, **options: Any) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            base_url=self.server.base_url,
            api_key="test",
            max_retries=max_retries,
            http_client=openai.DefaultAsyncHttpxClient(verify=False),
            **options,
        )

    def close(self) -> None:
        for client in self._opened:
            client.close()


@pytest.fixture
def clients(server: LoopbackServer) -> Iterator[Clients]:
    made = Clients(server)
    yield made
    made.close()


@dataclass(frozen=True)
class WeatherParams:
    city: str
    unit: str = "c"


@dataclass
class Calls:
    """``(tool, city, unit)`` per call (the async driver runs a turn's calls concurrently)."""

    seen: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, value: Any) -> None:
        with self.lock:
            self.seen.append(value)


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def make_prompt(calls: Calls) -> Callable[..., PromptTemplate[Any]]:
    """Build the weather prompt: ``get_weather`` succeeds and records; ``flaky`` raises.
    Keyword arguments go to ``PromptTemplate`` (e.g. ``output_type=``)."""
    tools = weather_tools(calls)

    def make(**template: Any) -> PromptTemplate[Any]:
        section = MarkdownSection(title="Task", template="What is the weather?", tools=tools)
        return PromptTemplate(ns="tests", key="weather", sections=[section], **template)

    return make


@pytest.fixture
def prompt(make_prompt: Callable[..., PromptTemplate[Any]]) -> PromptTemplate[Any]:
    return make_prompt()


def weather_tools(calls: Calls) -> list[Tool[Any, Any]]:
    def get_weather(params: WeatherParams) -> ToolResult[str]:
        calls.add(("get_weather", params.city, params.unit))
        return ToolResult(message=f"{params.city}: sunny, 21 {params.unit}", value=None)

    def flaky(params: WeatherParams) -> ToolResult[str]:
        calls.add(("flaky", params.city, params.unit))
        raise RuntimeError("backend down")

    return [
        Tool[WeatherParams, str](
            name="get_weather", description="Current weather for a city.", handler=get_weather
        ),
        Tool[WeatherParams, str](name="flaky", description="Always fails.", handler=flaky),
    ]
