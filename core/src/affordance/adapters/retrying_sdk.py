"""An SDK that does not retry (``google-genai``) as a plugin describes it to the core, and the
clients and transport an adapter gets from it.

The counterpart of :class:`~affordance.adapters.stainless_sdk.StainlessSdk` for an SDK whose
adapter owns the retries: such an adapter needs its
:class:`~affordance.adapters.clients.ClientPair` and a
:class:`~affordance.adapters.retrying.RetryingTransport` making the plugin's attempts through
those clients within the caller's retry budget. The SDKs differ in their client classes, their
failures (:class:`~affordance.adapters.sdk_failures.SdkFailures`), how a client is built from
the environment, and whether the async client is a side of the sync one (``google-genai``'s
``Client().aio``): then a given sync client serves both paths, and with no client at all one is
built on first use, whichever path asks first, for both (:class:`SharedClient`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from affordance._frozen import frozen
from affordance.adapters.clients import ClientPair
from affordance.adapters.environment import SharedClient
from affordance.adapters.retry import RequestRetryPolicy
from affordance.adapters.retrying import Exchange, RetryingTransport
from affordance.adapters.sdk_failures import SdkFailures
from affordance.clock import Clock

__all__ = ["RetryingSdk"]


@frozen
class RetryingSdk:
    """The SDK's sync and async client classes and its ``failures`` (which name the provider).
    ``build`` makes a sync client from the environment (by default, its class); ``async_of``
    gives a sync client's async side, for an SDK that has one (without it, an async client is
    built from the environment by its class)."""

    sync_type: type[Any]
    async_type: type[Any]
    failures: SdkFailures
    build: Callable[[], Any] | None = None
    async_of: Callable[[Any], Any] | None = None

    def connect(
        self,
        client: object,
        async_client: object,
        exchange: Exchange,
        *,
        clock: Clock,
        retry: RequestRetryPolicy | None = None,
        close_clients: bool = False,
    ) -> tuple[ClientPair[Any, Any], RetryingTransport]:
        """The adapter's clients — ``client`` and ``async_client`` (a given sync client's async
        side, when the SDK has one and no async client is given), or each kind built from the
        environment on first use — and the transport making ``exchange``'s attempts through
        them, retried within ``retry`` (by default a :class:`RequestRetryPolicy`'s), its waits
        on ``clock``."""
        build_sync: Callable[[], Any] = self.build or self.sync_type
        build_async: Callable[[], Any] = self.async_type
        async_of = self.async_of
        if async_of is not None:
            if isinstance(client, self.sync_type) and async_client is None:
                async_client = async_of(client)
            shared = SharedClient(build_sync)  # one client for both paths
            build_sync, build_async = shared, lambda: async_of(shared())
        clients = ClientPair.of(
            client,
            async_client,
            provider=self.failures.provider,
            sync_type=self.sync_type,
            async_type=self.async_type,
            build_sync=build_sync,
            build_async=build_async,
            close_clients=close_clients,
        )
        policy = retry if retry is not None else RequestRetryPolicy()
        transport = RetryingTransport.of(
            exchange, clients, self.failures, policy=policy, clock=clock
        )
        return clients, transport
