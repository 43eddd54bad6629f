"""Running tool handlers off the caller's thread, with a timeout that never blocks the caller.

Python cannot stop a thread. A handler that overruns its timeout keeps running in a daemon
thread; its late result is discarded and the call is reported as timed out. Daemon threads (not
a pool) are used for this, so an overrunning handler holds up neither a pool nor the shutdown of
an event loop.

A sync handler *without* a timeout, awaited from the event loop, runs on a reused worker
(:func:`await_in_worker`): a bounded set of daemon threads fed by one queue. ``asyncio.to_thread``
would do the same job through ``ThreadPoolExecutor``, ``concurrent.futures.Future`` and
``wrap_future``; the direct hand-off costs about a third of that (measured in ``bench/``), which
is most of what a plain ``def`` tool adds to an ``aevaluate`` run.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asyncio import Future

__all__ = [
    "HandlerTimeoutError",
    "await_in_thread",
    "await_in_worker",
    "run_in_thread",
]


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
    future, job = _handoff(function)
    threading.Thread(target=job, name=f"affordance-tool-{name}", daemon=True).start()
    return await future


def _handoff(function: Callable[[], object]) -> tuple[Future[object], Callable[[], None]]:
    """A future of the running loop, and the job that runs ``function`` in a copy of the
    caller's context on another thread and settles the future with its outcome. A settled
    (cancelled) future ignores the outcome; a closed loop drops it: nobody waits any more."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: Future[object] = loop.create_future()
    context = contextvars.copy_context()

    def settle(ok: bool, value: object) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)  # type: ignore[arg-type]

    def job() -> None:
        try:
            outcome: tuple[bool, object] = (True, context.run(function))
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting task
            outcome = (False, error)
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    return future, job


class _Workers:
    """Daemon threads that run jobs from one queue; a new thread starts only when none is idle,
    up to ``limit`` (asyncio's default executor bound); past it, jobs wait their turn."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._threads = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1  # that worker is this job's
                start = False
            else:
                start = self._threads < self.limit
                self._threads += start
        self._jobs.put(job)
        if start:
            threading.Thread(target=self._work, name="affordance-tool-worker", daemon=True).start()

    def _work(self) -> None:
        take, lock = self._jobs.get, self._lock
        while True:
            take()()  # a job never raises: it hands its outcome to the awaiting task
            with lock:
                self._idle += 1

    def forget_threads(self) -> None:
        """After ``fork`` the child has none of the parent's threads: start from zero."""
        self._jobs = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = self._threads = 0


_WORKERS = _Workers(min(32, (os.cpu_count() or 1) + 4))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WORKERS.forget_threads)


async def await_in_worker(function: Callable[[], object]) -> object:
    """Await ``function`` run on a reused worker thread, in a copy of the caller's context.

    Cancelling the awaiting task does not stop ``function``; its result is then dropped.
    """
    future, job = _handoff(function)
    _WORKERS.submit(job)
    return await future
