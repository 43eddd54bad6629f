"""The offline adapter and :func:`respond`: one ``ModelRequest`` read as a real model reads it —
the user's last message, the steps since, today's date — and answered with the next turn."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import date, datetime, timezone
from typing import Any

from affordance import ToolExecutor
from affordance.adapters import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter
from taskchat.offline.parsing import parse_intent
from taskchat.offline.steps import since_last_user_message

__all__ = ["offline_adapter", "respond"]


def offline_adapter(executor: ToolExecutor | None = None, *, pace: float = 0.0) -> ScriptedAdapter:
    """A ``ScriptedAdapter`` answering every request with :func:`respond`; streamed, it waits
    ``pace`` seconds after each piece, as a model typing would (0: no wait)."""
    if pace < 0:
        raise ValueError(f"pace must not be negative, got {pace}")
    # record=False: a server must not keep every request it ever saw
    return _PacedAdapter(responder=respond, executor=executor, pace=pace, record=False)


class _PacedAdapter(ScriptedAdapter):
    def __init__(self, *, pace: float, **options: Any) -> None:
        super().__init__(**options)
        self._pace = pace

    async def asend_stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        async for delta in super().asend_stream(request):
            yield delta
            if self._pace:
                await asyncio.sleep(self._pace)


def respond(request: ModelRequest) -> ProviderTurn:
    user_text, steps = since_last_user_message(request.messages)
    intent = parse_intent(user_text, _today(request.instructions))
    return intent.next_turn(steps)


_TODAY = re.compile(r"Today is (\d{4}-\d{2}-\d{2})")


def _today(instructions: str | None) -> date:
    match = _TODAY.search(instructions or "")
    if match is not None:
        return date.fromisoformat(match[1])
    return datetime.now(timezone.utc).date()
