"""A Stainless-generated SDK (``openai``, ``anthropic``) as a plugin describes it to the core, and
the clients and transport an adapter gets from it.

The two SDKs share one client core, so an adapter on either needs the same two things — its
:class:`~affordance.adapters.clients.ClientPair` and a
:class:`~affordance.adapters.transport.StainlessTransport` posting through those clients — and
the SDKs differ only in names: the client classes, the base error, the response header carrying
a request's id, and the error body's fields naming an error's kind. The plugin hands over the
SDK package itself: the core imports none.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from affordance._frozen import frozen
from affordance.adapters.clients import ClientPair
from affordance.adapters.transport import StainlessTransport

__all__ = ["StainlessSdk"]


@frozen
class StainlessSdk:
    """The SDK package ``module``, its sync and async client classes, its base error, the
    header of a request's id, and the error body's fields naming an error's kind."""

    module: ModuleType
    sync_type: type[Any]
    async_type: type[Any]
    error: type[Exception]
    request_id_header: str
    error_kinds: tuple[str, ...] = ("code", "type")

    def connect(
        self,
        client: object,
        async_client: object,
        *,
        provider: str,
        path: str,
        close_clients: bool = False,
        build_sync: Callable[[], Any] | None = None,
        build_async: Callable[[], Any] | None = None,
    ) -> tuple[ClientPair[Any, Any], StainlessTransport[Any]]:
        """The adapter's clients — ``client`` and ``async_client``, or each kind built from the
        environment on first use (by its class, unless ``build_*`` says otherwise) — and the
        transport posting to ``path`` through them."""
        clients = ClientPair.of(
            client,
            async_client,
            provider=provider,
            sync_type=self.sync_type,
            async_type=self.async_type,
            build_sync=build_sync,
            build_async=build_async,
            close_clients=close_clients,
        )
        transport = StainlessTransport.of(
            self.module,
            clients,
            path=path,
            provider=provider,
            sdk_error=self.error,
            request_id_header=self.request_id_header,
            error_kinds=self.error_kinds,
        )
        return clients, transport
