"""taskchat's database as an ``affordance.conversations.ConversationStore``.

The same tables the chat uses (``conversations``, ``conversation_messages``; ``database.py``
creates them, so the schema and its version are unchanged), seen through the store protocol
core runs take (``conversation=``). Each message is one row, stored as the chat stores it: a
one-message ``affordance.transcript`` document (older bare rows read too, see
``conversations.stored_messages``).

``append`` takes the conversation's row lock (``SELECT ... FOR UPDATE``; on SQLite taskchat's
engine begins every transaction with ``BEGIN IMMEDIATE``, which serializes writers), checks the
length the writer read (``expected``), inserts the rows and bumps the row's ``revision``, so it
and the chat's own revision-checked writes (``conversations.py``) never interleave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, exists, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from affordance.adapters import Message
from affordance.conversations import ConversationConflictError, ConversationStore
from affordance.conversations.store import check_conversation_id, check_expected
from affordance.errors import TranscriptError
from affordance.transcript import to_data
from taskchat.conversations import stored_messages
from taskchat.database import ConversationRow, Database, MessageRow
from taskchat.store import utc_now

__all__ = ["MAX_ID_LENGTH", "DatabaseConversations"]

MAX_ID_LENGTH = 32
"""The longest conversation id the ``conversations`` table holds (``String(32)``)."""


class DatabaseConversations(ConversationStore):
    """A conversation store on taskchat's database (any SQLAlchemy backend it supports).

    ``list()`` orders by the conversation row's ``updated_at`` (newest first), which the chat's
    own writes bump too; ``clock`` gives the times written."""

    def __init__(self, database: Database, clock: Callable[[], datetime] = utc_now) -> None:
        self._sessions = database.sessions
        self._clock = clock

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        _checked(conversation_id)
        with self._sessions() as session:
            rows = session.execute(
                select(MessageRow.seq, MessageRow.payload)
                .where(MessageRow.conversation_id == conversation_id)
                .order_by(MessageRow.seq)
            ).all()
        messages: list[Message] = []
        for seq, payload in rows:
            try:
                messages.extend(stored_messages(payload))
            except TranscriptError as error:
                raise TranscriptError(
                    f"stored message {seq} of conversation {conversation_id!r} does not read: "
                    f"{error}"
                ) from None
        return tuple(messages)

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        _checked(conversation_id)
        check_expected(expected)
        rows = [to_data((message,)) for message in messages]  # refused before the transaction
        try:
            return self._append(conversation_id, rows, expected)
        except IntegrityError:
            # On a server database two writers can both find no row and both insert it; the
            # one whose insert failed tries again, now behind the winner's row lock.
            return self._append(conversation_id, rows, expected)

    def _append(
        self, conversation_id: str, rows: list[dict[str, Any]], expected: int | None
    ) -> int:
        now = self._clock()
        with self._sessions.begin() as session:
            row = session.execute(
                select(ConversationRow.revision)
                .where(ConversationRow.id == conversation_id)
                .with_for_update()
            ).first()
            length = 0 if row is None else _length(session, conversation_id)
            if expected is not None and expected != length:
                raise ConversationConflictError(conversation_id, expected=expected, found=length)
            if not rows:
                return length
            if row is None:
                session.add(
                    ConversationRow(
                        id=conversation_id, revision=1, pending=None, created_at=now, updated_at=now
                    )
                )
                session.flush()
            else:
                session.execute(
                    update(ConversationRow)
                    .where(ConversationRow.id == conversation_id)
                    .values(revision=ConversationRow.revision + 1, updated_at=now)
                )
            session.add_all(
                MessageRow(conversation_id=conversation_id, seq=length + i, payload=payload)
                for i, payload in enumerate(rows)
            )
        return length + len(rows)

    def list(self) -> tuple[str, ...]:
        held = exists().where(MessageRow.conversation_id == ConversationRow.id)
        with self._sessions() as session:
            ids = session.scalars(
                select(ConversationRow.id)
                .where(held)
                .order_by(ConversationRow.updated_at.desc(), ConversationRow.id)
            ).all()
        return tuple(ids)

    def delete(self, conversation_id: str) -> None:
        _checked(conversation_id)
        with self._sessions.begin() as session:
            session.execute(delete(MessageRow).where(MessageRow.conversation_id == conversation_id))
            session.execute(delete(ConversationRow).where(ConversationRow.id == conversation_id))


def _length(session: Session, conversation_id: str) -> int:
    count = session.scalar(
        select(func.count())
        .select_from(MessageRow)
        .where(MessageRow.conversation_id == conversation_id)
    )
    return int(count or 0)


def _checked(conversation_id: str) -> None:
    check_conversation_id(conversation_id)
    if len(conversation_id) > MAX_ID_LENGTH:
        raise ValueError(
            f"taskchat's conversation ids are at most {MAX_ID_LENGTH} characters, got "
            f"{len(conversation_id)}: {conversation_id[:40]!r}"
        )
