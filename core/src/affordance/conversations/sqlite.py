"""``SQLiteConversationStore``: conversations in one SQLite file, standard library only.

Each message is one row — its conversation, its position, and the message as a one-message
``affordance.transcript`` document — so a conversation loads in order and every stored message
carries the format's version. The file is in WAL mode: readers never wait for a writer, and an
append holds the write lock (``BEGIN IMMEDIATE``) only while it checks the conversation's
length and inserts its rows; a writer waiting for another waits up to ``timeout`` seconds.
Writers in threads of one process and in other processes are safe: each thread uses a
connection of its own, and the length check makes a racing append fail
(:class:`~affordance.conversations.store.ConversationConflictError`) rather than interleave.

``":memory:"`` keeps the conversations in this process only, on one connection shared under a
lock (each SQLite connection to ``:memory:`` is a database of its own).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from affordance.conversations.store import Conversation, ConversationConflictError
from affordance.errors import TranscriptError

if TYPE_CHECKING:
    from affordance.runtime.model.messages import Message

__all__ = ["SQLiteConversationStore"]

_SCHEMA = (
    (
        "CREATE TABLE IF NOT EXISTS affordance_conversations ("
        " conversation_id TEXT PRIMARY KEY, length INTEGER NOT NULL, updated INTEGER NOT NULL)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS affordance_messages ("
        " conversation_id TEXT NOT NULL, position INTEGER NOT NULL, message TEXT NOT NULL,"
        " PRIMARY KEY (conversation_id, position)) WITHOUT ROWID"
    ),
)


class SQLiteConversationStore:
    """A :class:`~affordance.conversations.store.ConversationStore` in the SQLite file at
    ``path`` (created with its tables if missing); ``timeout``: seconds a writer waits for
    another's lock. ``close()`` closes every connection it opened."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = str(path)
        self.timeout = timeout
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._shared: sqlite3.Connection | None = None
        if self.path == ":memory:":
            self._shared = self._connect(check_same_thread=False)
        with self._connection() as db:
            for statement in _SCHEMA:
                db.execute(statement)

    def __repr__(self) -> str:
        return f"SQLiteConversationStore({self.path!r})"

    def conversation(self, conversation_id: str) -> Conversation:
        """The handle of one conversation, for ``conversation=``."""
        return Conversation(self, conversation_id)

    # -- the store ---------------------------------------------------------------------------

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        from affordance.transcript import loads

        with self._connection() as db:
            rows = db.execute(
                "SELECT position, message FROM affordance_messages"
                " WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
        messages: list[Message] = []
        for position, stored in rows:
            try:
                messages.extend(loads(stored))
            except TranscriptError as error:
                raise TranscriptError(
                    f"stored message {position} of conversation {conversation_id!r} does not "
                    f"read: {error}"
                ) from None
        return tuple(messages)

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        from affordance.transcript import dumps

        rows = [dumps((message,)) for message in messages]  # refused before any lock is taken
        with self._writing() as db:
            found = db.execute(
                "SELECT length FROM affordance_conversations WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            length = 0 if found is None else int(found[0])
            if expected is not None and expected != length:
                raise ConversationConflictError(conversation_id, expected=expected, found=length)
            if rows:
                db.executemany(
                    "INSERT INTO affordance_messages VALUES (?, ?, ?)",
                    [(conversation_id, length + i, row) for i, row in enumerate(rows)],
                )
                db.execute(
                    "INSERT INTO affordance_conversations VALUES (?, ?, ?)"
                    " ON CONFLICT (conversation_id) DO UPDATE"
                    " SET length = excluded.length, updated = excluded.updated",
                    (conversation_id, length + len(rows), time.time_ns()),
                )
        return length + len(rows)

    def list(self) -> tuple[str, ...]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT conversation_id FROM affordance_conversations"
                " ORDER BY updated DESC, conversation_id"
            ).fetchall()
        return tuple(str(row[0]) for row in rows)

    def delete(self, conversation_id: str) -> None:
        with self._writing() as db:
            db.execute(
                "DELETE FROM affordance_messages WHERE conversation_id = ?", (conversation_id,)
            )
            db.execute(
                "DELETE FROM affordance_conversations WHERE conversation_id = ?",
                (conversation_id,),
            )

    def close(self) -> None:
        """Close every connection this store opened (a thread's next call opens a new one)."""
        with self._lock:
            opened, self._opened = self._opened, []
            self._shared = None
        self._local = threading.local()
        for db in opened:
            db.close()

    # -- connections -------------------------------------------------------------------------

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction holding the database's write lock from its start (so a length
        read in it stays true until it commits); rolled back if the block raises."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        shared = self._shared
        if shared is not None:
            with self._lock:
                yield shared
            return
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            # used by this thread only; closable from any (``close``)
            db = self._local.db = self._connect(check_same_thread=False)
        yield db

    def _connect(self, *, check_same_thread: bool) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path,
            timeout=self.timeout,
            isolation_level=None,  # transactions are begun and ended here, explicitly
            check_same_thread=check_same_thread,
        )
        if self.path != ":memory:":
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        with self._lock:
            self._opened.append(db)
        return db
