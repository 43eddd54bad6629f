"""taskchat's database as an ``affordance.conversations.ConversationStore``.

The same tables the chat uses (``conversations``, ``conversation_messages``), seen through the
store protocol core runs take (``conversation=``): ``append`` bumps the conversation's
``revision`` in the same transaction, so it and the chat's own revision-checked writes
(``conversations.py``) never interleave, and it checks the length the writer read
(``expected``) under that row's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, update

from affordance.adapters import Message
from affordance.conversations import Conversation, ConversationConflictError
from affordance.transcript import to_data
from taskchat.conversations import stored_messages
from taskchat.database import ConversationRow, Database, MessageRow
from taskchat.store import utc_now

__all__ = ["DatabaseConversations"]


class DatabaseConversations:
    """A conversation store on taskchat's database (any SQLAlchemy backend it supports)."""

    def __init__(self, database: Database, clock: Callable[[], datetime] = utc_now) -> None:
        self._sessions = database.sessions
        self._clock = clock

    def conversation(self, conversation_id: str) -> Conversation:
        return Conversation(self, conversation_id)

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        with self._sessions() as session:
            payloads = session.scalars(
                select(MessageRow.payload)
                .where(MessageRow.conversation_id == conversation_id)
                .order_by(MessageRow.seq)
            ).all()
        return tuple(m for payload in payloads for m in stored_messages(payload))

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        rows = [to_data((message,)) for message in messages]  # refused before the transaction
        now = self._clock()
        with self._sessions.begin() as session:
            row = session.execute(
                select(ConversationRow.revision)
                .where(ConversationRow.id == conversation_id)
                .with_for_update()
            ).first()
            if row is None:
                session.add(
                    ConversationRow(
                        id=conversation_id, revision=1, pending=None, created_at=now, updated_at=now
                    )
                )
                session.flush()  # a second writer creating it too fails here, on the key
                length = 0
            else:
                length = (
                    session.scalar(
                        select(func.count())
                        .select_from(MessageRow)
                        .where(MessageRow.conversation_id == conversation_id)
                    )
                    or 0
                )
                session.execute(
                    update(ConversationRow)
                    .where(ConversationRow.id == conversation_id)
                    .values(revision=ConversationRow.revision + 1, updated_at=now)
                )
            if expected is not None and expected != length:
                raise ConversationConflictError(conversation_id, expected=expected, found=length)
            session.add_all(
                MessageRow(conversation_id=conversation_id, seq=length + i, payload=row)
                for i, row in enumerate(rows)
            )
        return length + len(rows)

    def list(self) -> tuple[str, ...]:
        with self._sessions() as session:
            ids = session.scalars(
                select(ConversationRow.id).order_by(
                    ConversationRow.updated_at.desc(), ConversationRow.id
                )
            ).all()
        return tuple(ids)

    def delete(self, conversation_id: str) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(MessageRow).where(MessageRow.conversation_id == conversation_id))
            session.execute(delete(ConversationRow).where(ConversationRow.id == conversation_id))
