"""What a tool call that runs a nested evaluation hands its run when a destructive call inside
the nested run waits for the caller: the wait, and later the caller's answers.

A ``PromptTool``'s handler is the main user, but any handler that evaluates a prompt through
``context.adapter`` can do the same: when the nested response waits for confirmations, return
``ToolResult.ok(NestedWaiting(...))`` (and add what the nested run spent with
``context.add_usage``). The
outer run then waits too, showing the nested calls (``PendingConfirmation.via`` names the
outer call), and once they are answered it runs the outer call again with the answers in
``context.nested_answers``.
"""

from __future__ import annotations

from collections.abc import Mapping

from affordance._frozen import frozen
from affordance.runtime.record.confirmation import Confirmation, PendingConfirmation

__all__ = ["NestedAnswers", "NestedWaiting"]


@frozen
class NestedWaiting:
    """A tool call's nested run waits for the caller's answers to ``pending``; ``state`` is
    what the handler needs to resume it (a ``PromptTool``: the nested run's session). The
    outer run holds the call, publishes no result for it, and waits too."""

    pending: tuple[PendingConfirmation, ...]
    state: object

    def render(self) -> str:
        """What a log or event shows of the wait (the model never sees it)."""
        return f"waiting for confirmation of {', '.join(p.call_id for p in self.pending)}"


@frozen
class NestedAnswers:
    """The caller's answers to a call's :class:`NestedWaiting`, handed back to the call when it
    runs again: ``state`` as the handler left it, ``confirmations`` by nested call id."""

    state: object
    confirmations: Mapping[str, Confirmation]
