"""Watching a transport's read side, so a dead server is known before the next request.

When a stdio server's process dies or an HTTP session's stream ends, the SDK's dispatcher sees
the end of its read stream and fails every later request with "Connection closed" — without
sending it. :func:`watched` wraps any transport so that the same moment also sets
``Watch.closed``: the connection then reconnects before it sends, and a request that fails with
"Connection closed" while the watch was open is known to have been in flight.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any

import anyio

__all__ = ["Watch", "watched"]


class Watch:
    """``closed`` turns true once the transport's read side has ended (or the session did)."""

    __slots__ = ("closed",)

    def __init__(self) -> None:
        self.closed = False


class _WatchedRead:
    """A read stream that tells its :class:`Watch` when it ends; otherwise the stream itself."""

    def __init__(self, stream: Any, watch: Watch) -> None:
        self._stream = stream
        self._watch = watch

    @property
    def last_context(self) -> Any:  # the dispatcher reads it by duck typing
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._watch.closed = True
            raise

    def __aiter__(self) -> _WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._watch.closed = True
        await self._stream.aclose()

    async def __aenter__(self) -> _WatchedRead:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@asynccontextmanager
async def watched(
    transport: AbstractAsyncContextManager[Any], watch: Watch
) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` with its read stream watched by ``watch``."""
    try:
        async with transport as (read_stream, write_stream):
            yield _WatchedRead(read_stream, watch), write_stream
    finally:
        watch.closed = True
