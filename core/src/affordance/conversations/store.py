"""``ConversationStore``: transcripts kept by conversation id, appended to, never rewritten.

A store keeps each conversation as the sequence of its messages. ``append`` adds messages at
the end, all or none, and only if the conversation still has the length the writer last saw
(``expected``): two writers that read the same history cannot both append after it — the
second gets :class:`ConversationConflictError` and nothing of its batch is stored. That is what
makes a run's messages land exactly once: the run appends what it added since it last appended,
at the length it left the conversation; an append retried after an unknown outcome (a lost
connection, a cancelled task) either lands or raises the conflict, never doubles.

:class:`Conversation` is one conversation of a store, the ``conversation=`` argument of the
evaluate entry points. Its ``aload``/``aappend`` run the store's calls in a worker thread, for
async code that must not block its event loop on a store's I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from affordance._frozen import frozen
from affordance.errors import ConversationConflictError, ConversationStoreError

if TYPE_CHECKING:
    from affordance.runtime.model.messages import Message

__all__ = [
    "Conversation",
    "ConversationConflictError",
    "ConversationStore",
    "ConversationStoreError",
    "check_conversation_id",
    "check_expected",
]


class ConversationStore(Protocol):
    """Where conversations are kept: a conversation is its messages, in the order appended;
    one never appended to (or deleted) is empty. A store that subclasses this protocol inherits
    :meth:`conversation`; the four others are its own."""

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        """The conversation's messages in order; ``()`` for one never appended to."""
        ...

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        """Add ``messages`` at the end, all or none; the conversation's new length. With
        ``expected``, only if the conversation has that many messages now, else
        :class:`ConversationConflictError` (an empty batch checks ``expected`` too)."""
        ...

    def list(self) -> tuple[str, ...]:
        """The ids of the conversations holding messages, the most recently appended to first."""
        ...

    def delete(self, conversation_id: str) -> None:
        """Forget the conversation (nothing happens for one not held); its id starts afresh."""
        ...

    def conversation(self, conversation_id: str) -> Conversation:
        """The handle of one conversation, for ``conversation=``."""
        return Conversation(self, conversation_id)


@frozen
class Conversation:
    """One conversation of a store: pass it as ``conversation=`` to ``evaluate``,
    ``aevaluate``, ``stream`` or ``astream``. The run loads its messages as the history before
    the caller's ``messages=``, and appends the caller's messages and the run's own after it at
    the length it loaded (``expected``) — each message once, also when the run waits for
    confirmation, stops at a limit or its stream is left early (then what is whole so far:
    every call with its result)."""

    store: ConversationStore
    conversation_id: str

    def __post_init__(self) -> None:
        check_conversation_id(self.conversation_id)

    def load(self) -> tuple[Message, ...]:
        """The conversation's messages so far."""
        return self.store.load(self.conversation_id)

    def append(self, messages: Sequence[Message], *, expected: int | None = None) -> int:
        """Add ``messages`` if the conversation still has ``expected`` messages (else
        :class:`ConversationConflictError`, appending nothing); the conversation's new length."""
        return self.store.append(self.conversation_id, messages, expected=expected)

    async def aload(self) -> tuple[Message, ...]:
        """:meth:`load` in a worker thread, leaving the event loop free."""
        import asyncio  # here: importing asyncio costs more than this whole package

        return await asyncio.to_thread(self.store.load, self.conversation_id)

    async def aappend(self, messages: Sequence[Message], *, expected: int | None = None) -> int:
        """:meth:`append` in a worker thread. Cancelling the awaiting task does not stop the
        append, which lands whole or not at all: load the conversation to learn which."""
        import asyncio

        batch = tuple(messages)  # the caller may change its sequence while the thread runs
        return await asyncio.to_thread(
            self.store.append, self.conversation_id, batch, expected=expected
        )


def check_conversation_id(conversation_id: object) -> str:
    """``conversation_id`` if it is a non-empty string; raised otherwise (for stores)."""
    if not isinstance(conversation_id, str):
        raise TypeError(f"a conversation id is a string, got {type(conversation_id).__qualname__}")
    if not conversation_id:
        raise ValueError("a conversation id cannot be empty")
    return conversation_id


def check_expected(expected: object) -> int | None:
    """``expected`` if it is ``None`` or a length (an int, 0 or more); raised otherwise."""
    if expected is None:
        return None
    if isinstance(expected, bool) or not isinstance(expected, int):
        raise TypeError(f"expected is a length (an int) or None, got {expected!r}")
    if expected < 0:
        raise ValueError(f"expected is a length, 0 or more, got {expected}")
    return expected
