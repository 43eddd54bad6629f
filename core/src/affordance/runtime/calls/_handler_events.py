"""The events of a handler at work, for observers (tracing): ``ToolHandlerStarted`` before the
first attempt and ``ToolAttemptFailed`` after each failed one.

They are built only when the call's bus or session would see one (:func:`handler_watched`: a
few dictionary lookups per call, nothing more when nobody watches), and then the executor runs
the call in a copy of the caller's context (:func:`run_isolated`, :func:`arun_isolated`): what
a subscriber sets there — a tracer's current span — holds for the handler and is gone when the
call ends.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.prepared import PreparedCall
from affordance.runtime.record.events import ToolAttemptFailed, ToolHandlerStarted

__all__ = [
    "arun_isolated",
    "handler_watched",
    "publish_attempt_failed",
    "publish_started",
    "run_isolated",
]

T = TypeVar("T")


def handler_watched(context: ToolContext) -> bool:
    """Whether anyone would see a handler event of a call with ``context``."""
    return context.session.watches_handlers or context.event_bus.wants_either(
        ToolHandlerStarted, ToolAttemptFailed
    )


def run_isolated(function: Callable[[], T]) -> T:
    """``function()`` in a copy of the current context."""
    return contextvars.copy_context().run(function)


async def arun_isolated(coroutine: Coroutine[Any, Any, T]) -> T:
    """``await coroutine`` as a task of its own, which runs in a copy of the current context
    (cancelling the caller cancels it)."""
    import asyncio

    return await asyncio.ensure_future(coroutine)


def publish_started(prepared: PreparedCall, context: ToolContext) -> None:
    tool = prepared.tool
    assert tool is not None
    _publish(
        context,
        ToolHandlerStarted(
            context.prompt.name,
            context.run_id,
            context.turn,
            prepared.call.id,
            prepared.call.name,
            prepared.params,
            tool,
        ),
    )


def publish_attempt_failed(
    prepared: PreparedCall, context: ToolContext, attempt: int, error_code: str, retrying: bool
) -> None:
    _publish(
        context,
        ToolAttemptFailed(
            context.prompt.name,
            context.run_id,
            context.turn,
            prepared.call.id,
            prepared.call.name,
            attempt,
            error_code,
            retrying,
        ),
    )


def _publish(context: ToolContext, event: object) -> None:
    context.session.apply(event)
    context.event_bus.publish(event)
