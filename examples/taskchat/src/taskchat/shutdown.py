"""The server's shutdown as the app sees it: requests in flight get a grace period, then the
chat requests still running are cut off — with an answer.

The server (``server.py``, on SIGTERM) stops accepting connections and calls
:meth:`Shutdown.begin`. Every request in flight goes on as usual: a chat request, plain or
streamed, finishes, is stored and is answered exactly as it would have been. ``grace`` seconds
later the chat requests still running are cut off: each one's run is cancelled, exactly as when
a streaming client leaves (``chat.py``'s rule: nothing of the run is stored, except confirmed
calls), it is answered with :class:`ShuttingDownError` — a JSON ``503 shutting_down`` from the
plain endpoint, the final ``error`` event of a stream — and the log names it. The other
endpoints answer at once and need nothing of this.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from taskchat.chat_errors import ShuttingDownError

__all__ = ["Shutdown"]

logger = logging.getLogger("taskchat.shutdown")

T = TypeVar("T")


class Shutdown:
    """Made with the app (``Services.shutdown``), begun by the server; ``grace`` in seconds
    (``0``: the chat requests in flight are cut off at once)."""

    def __init__(self, grace: float) -> None:
        if not 0 <= grace < math.inf:
            raise ValueError(f"grace must be 0 or more seconds, got {grace}")
        self.grace = grace
        self.begun = False
        self.cut_off_requests = 0
        self._over = False
        # futures, not an asyncio.Event: a test client may run each request in a loop of its own
        self._waiting: set[asyncio.Future[None]] = set()

    def begin(self) -> None:
        """Start the grace period (in the server's event loop, as it stops accepting)."""
        if self.begun:
            return
        self.begun = True
        logger.info("shutting down: the requests in flight have %g s to finish", self.grace)
        asyncio.get_running_loop().call_later(self.grace, self._end_grace)

    async def grace_over(self) -> None:
        """Return once the grace period has ended (never, while the server runs)."""
        if self._over:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.add(waiter)
        try:
            await waiter
        finally:
            self._waiting.discard(waiter)

    def _end_grace(self) -> None:
        self._over = True
        for waiter in self._waiting:
            if not waiter.done():
                waiter.set_result(None)

    def cut_off(self, scope: Mapping[str, Any]) -> ShuttingDownError:
        """Count and log a request being cut off; the error it is answered with."""
        self.cut_off_requests += 1
        logger.warning(
            "cut off %s %s: the shutdown grace of %g s is over",
            scope.get("method"),
            scope.get("path"),
            self.grace,
        )
        return ShuttingDownError(
            "the server is shutting down and stopped this request before it finished"
        )

    async def finish_or_cut_off(self, work: Coroutine[Any, Any, T], scope: Mapping[str, Any]) -> T:
        """``work``'s result; if the grace period ends first, ``work`` is cancelled and, once it
        has ended, :class:`ShuttingDownError` raised (a result it still came to is returned)."""
        task = asyncio.ensure_future(work)
        over = asyncio.ensure_future(self.grace_over())
        try:
            await asyncio.wait({task, over}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            over.cancel()
            task.cancel()  # a no-op once it is done; cut off, or cancelled with this request
            await asyncio.wait({task})
        if task.cancelled():
            raise self.cut_off(scope)
        return task.result()
