"""``ClientPair``: a provider's sync and async SDK clients, given or built on first use.

Every provider adapter takes ``client=`` (a sync or async SDK client) and ``async_client=`` (the
other kind), so callers control keys, base URLs, proxies and timeouts; with neither, each kind
is built once from the environment on first use and closed by the adapter's ``close()`` /
``aclose()``. Clients you pass stay yours (close them yourself) unless you hand them over with
``close_clients=True``. Given only one kind, the other path raises: a client is never derived
from the other, because its HTTP client (proxies, TLS, transport) cannot be carried over.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from affordance.errors import PromptEvaluationError

__all__ = ["ClientPair"]

SyncT = TypeVar("SyncT")
AsyncT = TypeVar("AsyncT")


class ClientPair(Generic[SyncT, AsyncT]):
    """The clients of one adapter. ``build_sync``/``build_async`` make a client from the
    environment; what they raise becomes a :class:`PromptEvaluationError` naming the provider
    (a missing API key, typically)."""

    def __init__(
        self,
        client: object,
        async_client: object,
        *,
        provider: str,
        sync_type: type[SyncT],
        async_type: type[AsyncT],
        build_sync: Callable[[], SyncT],
        build_async: Callable[[], AsyncT],
        close_sync: Callable[[SyncT], None],
        close_async: Callable[[AsyncT], Awaitable[None]],
        close_clients: bool = False,
    ) -> None:
        self.provider = provider
        self._close_sync = close_sync
        self._close_async = close_async
        self._names = (_type_name(sync_type), _type_name(async_type))
        self._build_sync = build_sync
        self._build_async = build_async
        self._sync, self._async = _split(client, async_client, sync_type, async_type)
        self.from_environment = client is None and async_client is None
        self.owned = self.from_environment or close_clients
        self._lock = threading.Lock()

    @classmethod
    def of(
        cls,
        client: object,
        async_client: object,
        *,
        provider: str,
        sync_type: type[SyncT],
        async_type: type[AsyncT],
        build_sync: Callable[[], SyncT] | None = None,
        build_async: Callable[[], AsyncT] | None = None,
        close_clients: bool = False,
    ) -> ClientPair[SyncT, AsyncT]:
        """The pair for SDK clients closed by their own ``close()`` (on the async one, its
        ``aclose()`` if it has one, else ``close()``, awaited), built from the environment by
        calling their class unless ``build_*`` says otherwise."""
        return cls(
            client,
            async_client,
            provider=provider,
            sync_type=sync_type,
            async_type=async_type,
            build_sync=build_sync or sync_type,
            build_async=build_async or async_type,
            close_sync=lambda sync: sync.close(),  # type: ignore[attr-defined]
            close_async=lambda async_: (getattr(async_, "aclose", None) or async_.close)(),  # type: ignore[attr-defined]
            close_clients=close_clients,
        )

    def sync_client(self) -> SyncT:
        """The sync client (built now if it comes from the environment)."""
        client = self._sync
        if client is not None:
            return client
        if not self.from_environment:
            sync_name, async_name = self._names
            raise RuntimeError(
                f"evaluate needs a sync client, but the {self.provider} adapter was given only "
                f"a {async_name}; pass client={sync_name}(...) too, or use aevaluate"
            )
        with self._lock:
            if self._sync is None:
                self._sync = self._build(self._build_sync)
            return self._sync

    def async_client(self) -> AsyncT:
        """The async client (built now if it comes from the environment)."""
        client = self._async
        if client is not None:
            return client
        if not self.from_environment:
            sync_name, async_name = self._names
            raise RuntimeError(
                f"aevaluate needs an async client, but the {self.provider} adapter was given "
                f"only a {sync_name}; pass async_client={async_name}(...) too, or use evaluate"
            )
        with self._lock:
            if self._async is None:
                self._async = self._build(self._build_async)
            return self._async

    def close(self) -> None:
        """Close the sync client if this pair owns it (built it, or was handed it)."""
        client, self._sync = self._sync, None
        if client is not None and self.owned:
            self._close_sync(client)
        elif client is not None:
            self._sync = client

    async def aclose(self) -> None:
        """Close the async client if this pair owns it; call it on the loop that used it."""
        client, self._async = self._async, None
        if client is not None and self.owned:
            await self._close_async(client)
        elif client is not None:
            self._async = client

    def _build(self, factory: Callable[[], Any]) -> Any:
        try:
            return factory()
        except Exception as error:
            raise PromptEvaluationError(
                f"cannot build a {self.provider} client from the environment: {error}",
                phase="request",
                provider=self.provider,
            ) from error


def _type_name(kind: type[Any]) -> str:
    """``openai.OpenAI``: the SDK's top-level package and the class, as users write it."""
    return f"{kind.__module__.split('.')[0]}.{kind.__qualname__}"


def _split(
    client: object, async_client: object, sync_type: type[SyncT], async_type: type[AsyncT]
) -> tuple[SyncT | None, AsyncT | None]:
    name = _type_name
    if async_client is not None and not isinstance(async_client, async_type):
        raise TypeError(f"async_client must be a {name(async_type)}, got {type(async_client)!r}")
    if client is None:
        return None, async_client
    if isinstance(client, async_type):
        if async_client is not None:
            raise TypeError(f"client is a {name(async_type)} and async_client is given too")
        return None, client
    if isinstance(client, sync_type):
        return client, async_client
    raise TypeError(
        f"client must be a {name(sync_type)} or {name(async_type)}, got {type(client)!r}"
    )
