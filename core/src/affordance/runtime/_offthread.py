"""Running tool handlers off the caller's thread, with a timeout that never blocks the caller.

Python cannot stop a thread. A handler that overruns its timeout keeps running in a daemon
thread; its late result is discarded and the call is reported as timed out. Daemon threads (not
a pool) are used for this, so an overrunning handler holds up neither a pool nor the shutdown of
an event loop.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["HandlerTimeoutError", "await_in_thread", "run_coroutine", "run_in_thread"]


class HandlerTimeoutError(Exception):
    """A handler did not finish within its timeout."""


def run_in_thread(function: Callable[[], object], timeout: float | None, name: str) -> object:
    """Run ``function`` in a daemon thread and wait at most ``timeout`` seconds for it.

    A handler that overruns keeps running in its thread (Python cannot stop it); its result is
    discarded and the call is reported as timed out.
    """
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome.append((True, context.run(function)))
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            outcome.append((False, error))
        finally:
            done.set()

    threading.Thread(target=target, name=f"affordance-tool-{name}", daemon=True).start()
    if not done.wait(timeout):
        raise HandlerTimeoutError
    ok, value = outcome[0]
    if ok:
        return value
    raise value  # type: ignore[misc]


async def await_in_thread(function: Callable[[], object], name: str) -> object:
    """Await ``function`` run in a daemon thread; abandoning the wait leaves the thread be."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[object] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: object) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)  # type: ignore[arg-type]

    def target() -> None:
        try:
            outcome: tuple[bool, object] = (True, context.run(function))
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting task
            outcome = (False, error)
        # If the loop closed while the handler overran, nobody waits for the result any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=target, name=f"affordance-tool-{name}", daemon=True).start()
    return await future


def run_coroutine(coroutine: Any, timeout: float | None) -> object:
    """Run an async handler from the sync driver, in its own event loop."""
    import asyncio

    async def bounded() -> object:
        if timeout is None:
            return await coroutine
        return await asyncio.wait_for(coroutine, timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        try:
            return asyncio.run(bounded())
        except (TimeoutError, asyncio.TimeoutError) as error:
            raise HandlerTimeoutError from error
    # Called from inside a running loop (sync evaluate in async code): use a fresh thread.
    try:
        return run_in_thread(
            lambda: asyncio.run(bounded()), None if timeout is None else timeout + 1, "async"
        )
    except (TimeoutError, asyncio.TimeoutError) as error:
        raise HandlerTimeoutError from error
