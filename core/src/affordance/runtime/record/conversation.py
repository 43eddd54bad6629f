"""What a run needs of the ``conversation=`` it is given: to load its history, and to append.

``affordance.conversations.Conversation`` (one conversation of a store) is one; any object with
these two methods is another. A run loads the history once, before its first request, and
appends what it added after the history — the caller's ``messages=`` and its own transcript —
whenever it returns, waits or stops, each message once (see ``Evaluation.save_conversation``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from affordance.runtime.model.messages import Message

__all__ = ["ConversationHandle"]


class ConversationHandle(Protocol):
    def load(self) -> tuple[Message, ...]:
        """The conversation's messages so far."""
        ...

    def append(self, messages: Sequence[Message], *, expected: int | None = None) -> int:
        """Add ``messages`` if the conversation still has ``expected`` messages (else raise,
        appending nothing); the conversation's new length."""
        ...
