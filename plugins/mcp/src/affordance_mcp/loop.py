"""The event loop every MCP client session of this process lives on, in a thread of its own.

An MCP session is a tree of anyio tasks and cancel scopes: it must be entered and left by the
same task, on the loop it was made on. Callers come from everywhere — sync code, an
``aevaluate`` on the caller's loop, a worker thread the executor made, a task that was not the
one that connected. So no caller ever touches a session directly: each session is held open by
one task on this loop, and callers hand it coroutines through :func:`submit` (a
``concurrent.futures.Future`` they wait on, or wrap for their own loop). Connecting and closing
from any thread or task is then safe by construction, and a caller's cancellation cancels only
its own request.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["asubmit", "submit"]

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _running_loop() -> asyncio.AbstractEventLoop:
    """The shared loop, started (as a daemon thread) on first use."""
    global _loop
    loop = _loop
    if loop is not None:
        return loop
    with _lock:
        if _loop is None:
            started = threading.Event()
            new_loop = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(new_loop)
                new_loop.call_soon(started.set)
                new_loop.run_forever()

            threading.Thread(target=run, name="affordance-mcp", daemon=True).start()
            started.wait()
            _loop = new_loop
        return _loop


def submit(coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Run ``coroutine`` on the MCP loop; the future answers its result."""
    return asyncio.run_coroutine_threadsafe(coroutine, _running_loop())


async def asubmit(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await ``coroutine`` run on the MCP loop, from any other loop; cancelling the caller
    cancels it there too."""
    loop = _running_loop()
    if asyncio.get_running_loop() is loop:  # already on the MCP loop (a server callback)
        return await coroutine
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))
