"""A chat request's run once it settled — it replied, or it waits for confirmations — in the
process or on Temporal: what the service stores of it (:class:`SettledRun`), and
:func:`uninterrupted`, which lets storing it (or starting a durable run) finish when the
request is cancelled meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from affordance.adapters import Message
from taskchat.conversations import PendingCall, PendingTurn

__all__ = ["SettledRun", "confirmation_text", "uninterrupted"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SettledRun:
    """What a run leaves to store: its new messages, the turn it waits on, the reply."""

    messages: tuple[Message, ...]
    pending: PendingTurn | None
    reply: str


def confirmation_text(calls: Sequence[PendingCall]) -> str:
    """The reply of a run that waits and said nothing itself."""
    return f"This needs your confirmation: {', '.join(call.name for call in calls)}."


async def uninterrupted(work: Coroutine[Any, Any, T]) -> T:
    """Finish ``work`` even if this task is cancelled meanwhile (the cancellation goes on once
    it is done): what has been done must be stored."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise
