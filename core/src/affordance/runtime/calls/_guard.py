"""Keeping what a handler raises inside its call.

A handler is application code and may raise anything. Every ``Exception`` becomes a failed
result in the executor; this module does the same for the ``BaseException``s a handler has no
business letting out of the run — an ``asyncio.CancelledError`` it raised itself,
``GeneratorExit``, the application's own ``BaseException`` subclasses — by wrapping each in
:class:`HandlerEscape`, an ``Exception`` that carries the original to the executor.

Three things still propagate: ``KeyboardInterrupt`` and ``SystemExit`` (someone asked the
process to stop), and a ``CancelledError`` that is the cancellation of the run itself (or of
the handler by its timeout). On Python 3.11+ the task's ``cancelling()`` count tells the two
kinds of ``CancelledError`` apart; Python 3.10 has no such count, so there the handler runs in
a child task and only a cancellation of the waiting task counts as the run's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["HandlerEscape", "await_guarded", "call_guarded"]


class HandlerEscape(Exception):  # noqa: N818 - it carries a handler's exception
    """A ``BaseException`` from a handler, carried to the executor as an ordinary exception."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(type(error).__name__)
        self.error = error


def call_guarded(function: Callable[..., object], *args: Any) -> object:
    """Call a sync handler (``function(*args)``); a ``BaseException`` it raises comes out as
    :class:`HandlerEscape`.

    A sync handler cannot be cancelled by asyncio, so every ``CancelledError`` it raises is
    its own.
    """
    try:
        return function(*args)
    except (Exception, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:
        raise HandlerEscape(error) from error


async def await_guarded(coroutine: Coroutine[Any, Any, object]) -> object:
    """Await an async handler; its own ``BaseException``s come out as :class:`HandlerEscape`,
    while a cancellation of the awaiting task propagates unchanged."""
    cancelling = getattr(asyncio.current_task(), "cancelling", None)  # Python 3.11+
    if cancelling is None:
        return await _await_in_child_task(coroutine)
    try:
        return await coroutine
    except (Exception, KeyboardInterrupt, SystemExit):
        raise
    except asyncio.CancelledError as error:
        if cancelling():
            raise  # the run (or the handler's timeout) cancelled this task
        raise HandlerEscape(error) from error
    except BaseException as error:
        raise HandlerEscape(error) from error


async def _contained(coroutine: Coroutine[Any, Any, object]) -> object:
    try:
        return await coroutine
    except (Exception, KeyboardInterrupt, SystemExit, asyncio.CancelledError):
        raise
    except BaseException as error:
        raise HandlerEscape(error) from error


async def _await_in_child_task(coroutine: Coroutine[Any, Any, object]) -> object:
    """Python 3.10: run the handler in a child task, so a ``CancelledError`` it raises (the
    child ends cancelled) is told apart from one delivered to the waiting task."""
    child = asyncio.ensure_future(_contained(coroutine))
    try:
        await asyncio.wait((child,))
    except asyncio.CancelledError:
        child.cancel()
        child.add_done_callback(_retrieve)
        raise
    if child.cancelled():
        raise HandlerEscape(asyncio.CancelledError())
    return child.result()


def _retrieve(task: asyncio.Future[object]) -> None:
    """Collect an abandoned child's outcome, so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()
