"""Shared pieces of the OpenAI adapter tests: the loopback server, real SDK clients pointed at
it, and the weather prompt (tests/fixtures/weather.py) whose tools record their calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from loopback import LoopbackServer, openai_server


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
