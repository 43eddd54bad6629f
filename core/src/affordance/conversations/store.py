"""``ConversationStore``: transcripts kept by conversation id, appended to, never rewritten.

A store keeps each conversation as the sequence of its messages. ``append`` adds messages at
the end, and only if the conversation still has the length the writer last saw (``expected``):
two writers that read the same history cannot both append after it — the second gets
:class:`ConversationConflictError` and nothing of its batch is stored. That is what makes a
run's messages land exactly once: the run appends what it added since it last appended, at the
length it left the conversation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from affordance.errors import AffordanceError

if TYPE_CHECKING:
    from affordance.runtime.model.messages import Message

__all__ = ["Conversation", "ConversationConflictError", "ConversationStore"]


class ConversationConflictError(AffordanceError):
    """Another writer appended to the conversation since this one read it: ``expected`` is the
    length this writer saw, ``found`` the length the store holds. Nothing was appended."""

    def __init__(self, conversation_id: str, *, expected: int, found: int) -> None:
        self.conversation_id = conversation_id
        self.expected = expected
        self.found = found
        super().__init__(
            f"conversation {conversation_id!r} has {found} messages, not the {expected} this "
            "writer read: another writer appended in between; load it again"
        )


class ConversationStore(Protocol):
    """Where conversations are kept. Messages are stored in ``affordance.transcript``'s format,
    so a conversation reloads equal to what was appended, provider items included."""

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        """The conversation's messages in order; ``()`` for one never appended to."""
        ...

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        """Add ``messages`` at the end, all or none; the conversation's new length. With
        ``expected``, only if the conversation has that many messages now, else
        :class:`ConversationConflictError`."""
        ...

    def list(self) -> tuple[str, ...]:
        """The ids of the conversations held, the most recently appended to first."""
        ...

    def delete(self, conversation_id: str) -> None:
        """Forget the conversation (nothing happens for one not held)."""
        ...


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation of a store: pass it as ``conversation=`` to ``evaluate``,
    ``aevaluate``, ``stream`` or ``astream``. The run loads its messages as the history before
    the caller's ``messages=``, and appends the caller's messages and the run's own after it —
    each message once, also when the run waits for confirmation, stops at a limit or its
    stream is left early (then what is whole so far: every call with its result)."""

    store: ConversationStore
    conversation_id: str

    def load(self) -> tuple[Message, ...]:
        return self.store.load(self.conversation_id)

    def append(self, messages: Sequence[Message], *, expected: int | None = None) -> int:
        return self.store.append(self.conversation_id, messages, expected=expected)
