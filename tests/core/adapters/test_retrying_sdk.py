"""``RetryingSdk`` (``affordance.adapters.retrying_sdk``): what a plugin tells the core of an SDK
that does not retry, and the clients and retrying transport an adapter gets from it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from affordance.adapters import (
    HttpFailure,
    ModelRequest,
    RequestRetryPolicy,
    RetryingSdk,
    SdkFailures,
)
from affordance.testing import FakeClock


class Async:
    def __init__(self, side_of: Sync | None = None) -> None:
        self.side_of = side_of
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


class Sync:
    def __init__(self) -> None:
        self.aio = Async(self)
        self.closed = False

    def close(self) -> None:
        self.closed = True


class NoExchange:
    """The transport is built, never used here."""

    def attempt(
        self, client: Any, body: Any, request: ModelRequest, *, stream: bool
    ) -> Callable[[], Any]:
        raise NotImplementedError

    def content(self, answer: Any) -> bytes:
        raise NotImplementedError

    def headers(self, answer: Any) -> Any:
        return None

    def raw_response(self, answer: Any) -> Any:
        return None


def no_failure(error: Exception) -> HttpFailure | None:
    return None


FAILURES = SdkFailures("acme", no_failure, frozenset({503}), ("x-acme-request-id",))
SIDED = RetryingSdk(Sync, Async, FAILURES, async_of=lambda client: client.aio)
SEPARATE = RetryingSdk(Sync, Async, FAILURES)
CLOCK = FakeClock()


def test_a_given_sync_client_serves_both_paths_through_its_async_side() -> None:
    client = Sync()

    clients, _ = SIDED.connect(client, None, NoExchange(), clock=CLOCK)

    assert clients.sync_client() is client
    assert clients.async_client() is client.aio
    assert not clients.owned


def test_a_given_async_client_is_kept_over_the_sync_clients_side() -> None:
    client, other = Sync(), Async()

    clients, _ = SIDED.connect(client, other, NoExchange(), clock=CLOCK)

    assert clients.async_client() is other


def test_without_a_side_the_async_path_needs_its_own_client() -> None:
    clients, _ = SEPARATE.connect(Sync(), None, NoExchange(), clock=CLOCK)

    with pytest.raises(RuntimeError, match="given only a"):
        clients.async_client()


def test_without_a_client_one_built_on_first_use_serves_both_paths_and_is_owned() -> None:
    built: list[Sync] = []

    def build() -> Sync:
        built.append(Sync())
        return built[-1]

    sdk = RetryingSdk(Sync, Async, FAILURES, build=build, async_of=lambda client: client.aio)
    clients, _ = sdk.connect(None, None, NoExchange(), clock=CLOCK)

    assert built == []
    async_client = clients.async_client()
    assert clients.sync_client() is built[0]
    assert async_client is built[0].aio
    assert len(built) == 1
    assert clients.owned
    clients.close()
    asyncio.run(clients.aclose())
    assert built[0].closed
    assert async_client.closed


def test_without_a_side_each_kind_is_built_by_its_class() -> None:
    clients, _ = SEPARATE.connect(None, None, NoExchange(), clock=CLOCK)

    assert isinstance(clients.sync_client(), Sync)
    assert isinstance(clients.async_client(), Async)
    assert clients.async_client().side_of is None


def test_close_clients_hands_the_given_clients_over() -> None:
    clients, _ = SIDED.connect(Sync(), None, NoExchange(), clock=CLOCK, close_clients=True)

    assert clients.owned


def test_the_transport_retries_within_the_budget_given_else_the_default_one() -> None:
    exchange = NoExchange()
    budget = RequestRetryPolicy(max_retries=5)

    clients, transport = SIDED.connect(Sync(), None, exchange, clock=CLOCK, retry=budget)
    _, default = SIDED.connect(Sync(), None, exchange, clock=CLOCK)

    assert (transport.exchange, transport.clients, transport.clock) == (exchange, clients, CLOCK)
    assert transport.policy is budget
    assert default.policy == RequestRetryPolicy()
    assert (transport.provider, transport.request_id_headers) == ("acme", ("x-acme-request-id",))
    assert transport.classify == FAILURES.classify
    assert clients.provider == "acme"
