"""``StainlessSdk`` (``affordance.adapters.stainless_sdk``): what a plugin tells the core of a
Stainless-generated SDK, and the clients and transport an adapter gets from it."""

from __future__ import annotations

import types

from affordance.adapters import StainlessSdk


class Sync:
    def close(self) -> None: ...


class Async:
    async def close(self) -> None: ...


class SdkError(Exception):
    pass


def sdk_package() -> types.ModuleType:
    """A stand-in for ``openai``/``anthropic``: what the transport takes from the package."""
    package = types.ModuleType("standin_sdk")
    package.DefaultHttpxClient = object  # type: ignore[attr-defined]
    package.APIStatusError = type("APIStatusError", (SdkError,), {})  # type: ignore[attr-defined]
    package.APIConnectionError = type("APIConnectionError", (SdkError,), {})  # type: ignore[attr-defined]
    return package


SDK = StainlessSdk(sdk_package(), Sync, Async, SdkError, "x-request-id", error_kinds=("type",))


def test_connect_pairs_the_given_client_with_a_transport_posting_to_the_path() -> None:
    client = Sync()

    clients, transport = SDK.connect(client, None, provider="p", path="/v1/things")

    assert clients.sync_client() is client
    assert not clients.owned
    assert transport.clients is clients
    assert (transport.post.path, transport.provider) == ("/v1/things", "p")
    assert (transport.sdk_error, transport.request_id_header) == (SdkError, "x-request-id")


def test_without_a_client_each_kind_is_built_on_first_use_and_owned() -> None:
    built: list[str] = []

    def build() -> Sync:
        built.append("sync")
        return Sync()

    clients, _ = SDK.connect(None, None, provider="p", path="/x", build_sync=build)

    assert built == []
    assert isinstance(clients.sync_client(), Sync)
    assert built == ["sync"]
    assert clients.owned


def test_close_clients_hands_the_given_clients_over() -> None:
    clients, _ = SDK.connect(Sync(), None, provider="p", path="/x", close_clients=True)

    assert clients.owned
