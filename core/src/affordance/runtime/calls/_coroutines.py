"""Running an ``async def`` handler from the sync driver.

``asyncio.run`` builds an event loop for one coroutine and tears it down again: about 60 µs on
CPython 3.13, more than the rest of a run. Each thread that runs async handlers synchronously
keeps one loop instead, and cleans it after every call the way ``asyncio.run`` would: tasks the
handler left behind are cancelled and awaited. (An async generator the handler left open is
closed when it is garbage-collected, not at the end of the call.) The loop is closed when its
thread is gone, or at exit for the main thread.

From inside a running event loop (sync ``evaluate`` called from async code) the current thread
cannot run another loop: the handler then runs with ``asyncio.run`` on a thread of its own.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any

from affordance.runtime.calls._offthread import HandlerTimeoutError, run_in_thread

__all__ = ["run_coroutine"]


class _ThreadLoop(threading.local):
    loop: asyncio.AbstractEventLoop | None = None


_LOCAL = _ThreadLoop()


def run_coroutine(coroutine: Any, timeout: float | None) -> object:
    """Run ``coroutine`` (an async handler's call) to its end, within ``timeout`` seconds."""

    async def bounded() -> object:
        if timeout is None:
            return await coroutine
        return await asyncio.wait_for(coroutine, timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = _thread_loop()
        try:
            return loop.run_until_complete(bounded())
        except (TimeoutError, asyncio.TimeoutError) as error:
            raise HandlerTimeoutError from error
        finally:
            _clean(loop)
    try:
        return run_in_thread(
            lambda: asyncio.run(bounded()), None if timeout is None else timeout + 1, "async"
        )
    except (TimeoutError, asyncio.TimeoutError) as error:
        raise HandlerTimeoutError from error


def _thread_loop() -> asyncio.AbstractEventLoop:
    loop = _LOCAL.loop
    if loop is None or loop.is_closed():
        loop = _LOCAL.loop = asyncio.new_event_loop()
        weakref.finalize(threading.current_thread(), loop.close)
    return loop


def _clean(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what the call left running, as ``asyncio.run`` does before closing its loop."""
    leftover = asyncio.all_tasks(loop)
    if leftover:
        for task in leftover:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
