"""What a tool call that runs a nested evaluation hands its run: the usage the nested run spent,
and — when a destructive call inside it waits for the caller — the wait itself.

A ``PromptTool``'s handler is the main user, but any handler that evaluates a prompt through
``context.adapter`` can do the same: add the nested usage with ``context.add_usage`` and, when
the nested response waits for confirmations, return ``ToolResult.ok(NestedWaiting(...))``. The
outer run then waits too, showing the nested calls (``PendingConfirmation.via`` names the
outer call), and once they are answered it runs the outer call again with the answers in
``context.nested_answers``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from affordance._fastinit import fast_init
from affordance.runtime.model.turn import NO_USAGE, Usage
from affordance.runtime.record.confirmation import Confirmation, PendingConfirmation

__all__ = ["NestedAnswers", "NestedWaiting", "UsageTally"]


@fast_init
@dataclass(frozen=True, slots=True)
class NestedWaiting:
    """A tool call's nested run waits for the caller's answers to ``pending``; ``state`` is
    what the handler needs to resume it (a ``PromptTool``: the nested run's session). The
    outer run holds the call, publishes no result for it, and waits too."""

    pending: tuple[PendingConfirmation, ...]
    state: object

    def render(self) -> str:
        """What a log or event shows of the wait (the model never sees it)."""
        return f"waiting for confirmation of {', '.join(p.call_id for p in self.pending)}"


@fast_init
@dataclass(frozen=True, slots=True)
class NestedAnswers:
    """The caller's answers to a call's :class:`NestedWaiting`, handed back to the call when it
    runs again: ``state`` as the handler left it, ``confirmations`` by nested call id."""

    state: object
    confirmations: Mapping[str, Confirmation]


class UsageTally:
    """Usage that tool calls spent on nested runs, by provider, until their run adds it to its
    own. Calls of one turn may run in threads at once, so adding takes a lock."""

    __slots__ = ("_lock", "_spent")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spent: list[tuple[str, Usage]] = []

    def add(self, usage: Usage, provider: str) -> None:
        if usage is NO_USAGE:
            return
        with self._lock:
            self._spent.append((provider, usage))

    def take(self) -> list[tuple[str, Usage]]:
        """Everything added since the last ``take``."""
        with self._lock:
            spent, self._spent = self._spent, []
        return spent
