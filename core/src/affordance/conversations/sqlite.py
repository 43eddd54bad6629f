"""``SQLiteConversationStore``: conversations in one SQLite file, standard library only.

Each message is one row — its conversation, its position, and the message as a one-message
``affordance.transcript`` document — so a conversation loads in order, a range of it can be
read alone, and every stored message carries the format's version. The tables are prefixed
``affordance_``, so they can share a file with an application's own. The file is in WAL mode:
readers never wait for a writer, and an append holds the write lock (``BEGIN IMMEDIATE``) only
while it checks the conversation's length and inserts its rows; a writer waiting for another
waits up to ``timeout`` seconds. Writers in threads of one process and in other processes are
safe: each thread uses a connection of its own, and with ``expected`` the length check makes a
racing append fail (:class:`~affordance.errors.ConversationConflictError`) rather than
interleave.

``":memory:"`` keeps the conversations in this store object only, on one connection its threads
share under a lock (each SQLite connection to ``:memory:`` is a database of its own); they are
gone at ``close()``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from affordance.conversations.store import (
    ConversationStore,
    check_conversation_id,
    check_expected,
)
from affordance.errors import ConversationConflictError, ConversationStoreError, TranscriptError

if TYPE_CHECKING:
    from types import TracebackType

    from affordance.runtime.model.messages import Message

__all__ = ["SCHEMA_VERSION", "SQLiteConversationStore"]

SCHEMA_VERSION = 1
"""The version of the tables below, kept in ``affordance_schema``; a file holding a newer one
is refused rather than misread."""

_TABLES = (
    (
        "CREATE TABLE IF NOT EXISTS affordance_schema ("
        " component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
    ),
    # ``appended``: a counter over the whole file, bumped by every append (the order of list())
    (
        "CREATE TABLE IF NOT EXISTS affordance_conversations ("
        " conversation_id TEXT PRIMARY KEY, length INTEGER NOT NULL, appended INTEGER NOT NULL)"
    ),
    (
        "CREATE INDEX IF NOT EXISTS affordance_conversations_by_append"
        " ON affordance_conversations (appended)"
    ),
    (
        "CREATE TABLE IF NOT EXISTS affordance_messages ("
        " conversation_id TEXT NOT NULL, position INTEGER NOT NULL, message TEXT NOT NULL,"
        " PRIMARY KEY (conversation_id, position)) WITHOUT ROWID"
    ),
)
_COMPONENT = "conversations"


class SQLiteConversationStore(ConversationStore):
    """A :class:`~affordance.conversations.store.ConversationStore` in the SQLite file at
    ``path`` (created with its tables if missing; its folder must exist), or ``":memory:"``.
    ``timeout``: seconds a writer waits for another's lock before
    :class:`~affordance.errors.ConversationStoreError`. ``close()`` (or leaving a ``with``
    block) closes every connection it opened; the store cannot be used after it."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        given: object = timeout  # callers are not always type-checked
        if isinstance(given, bool) or not isinstance(given, (int, float)) or given <= 0:
            raise ValueError(f"timeout is a number of seconds above 0, got {timeout!r}")
        self.path = os.fspath(path)
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._opened: dict[threading.Thread, sqlite3.Connection] = {}
        self._shared: sqlite3.Connection | None = None
        self._closed = False
        try:
            with self._failures("open the store"):
                if self.path == ":memory:":
                    self._shared = self._connect()
                self._create_tables()
        except BaseException:
            self.close()  # what it opened before failing
            raise

    def __repr__(self) -> str:
        return f"SQLiteConversationStore({self.path!r})"

    def __enter__(self) -> SQLiteConversationStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- the store ---------------------------------------------------------------------------

    def load(self, conversation_id: str) -> tuple[Message, ...]:
        from affordance.transcript import loads

        check_conversation_id(conversation_id)
        with self._failures("load", conversation_id), self._connection() as db:
            rows = db.execute(
                "SELECT position, message FROM affordance_messages"
                " WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
        messages: list[Message] = []
        for index, (position, stored) in enumerate(rows):
            where = f"stored message {position} of conversation {conversation_id!r}"
            if position != index:
                raise TranscriptError(f"{where} is where message {index} should be: rows are lost")
            try:
                read = loads(stored)
            except TranscriptError as error:
                raise TranscriptError(f"{where} does not read: {error}") from None
            if len(read) != 1:
                raise TranscriptError(f"{where} holds {len(read)} messages, not 1")
            messages.append(read[0])
        return tuple(messages)

    def append(
        self, conversation_id: str, messages: Sequence[Message], *, expected: int | None = None
    ) -> int:
        from affordance.transcript import dumps

        check_conversation_id(conversation_id)
        check_expected(expected)
        rows = [dumps((message,)) for message in messages]  # refused before any lock is taken
        with self._failures("append to", conversation_id), self._writing() as db:
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
                    "INSERT INTO affordance_conversations VALUES (?, ?,"
                    " (SELECT COALESCE(MAX(appended), 0) + 1 FROM affordance_conversations))"
                    " ON CONFLICT (conversation_id) DO UPDATE"
                    " SET length = excluded.length, appended = excluded.appended",
                    (conversation_id, length + len(rows)),
                )
        return length + len(rows)

    def list(self) -> tuple[str, ...]:
        with self._failures("list the conversations"), self._connection() as db:
            rows = db.execute(
                "SELECT conversation_id FROM affordance_conversations ORDER BY appended DESC"
            ).fetchall()
        return tuple(str(row[0]) for row in rows)

    def delete(self, conversation_id: str) -> None:
        check_conversation_id(conversation_id)
        with self._failures("delete", conversation_id), self._writing() as db:
            db.execute(
                "DELETE FROM affordance_messages WHERE conversation_id = ?", (conversation_id,)
            )
            db.execute(
                "DELETE FROM affordance_conversations WHERE conversation_id = ?",
                (conversation_id,),
            )

    def close(self) -> None:
        """Close every connection this store opened; call it when no call is under way. Closing
        twice is no error."""
        with self._lock:
            self._closed = True
            opened = [*self._opened.values()]
            if self._shared is not None:
                opened.append(self._shared)
            self._opened, self._shared = {}, None
        for db in opened:
            db.close()

    # -- connections -------------------------------------------------------------------------

    def _create_tables(self) -> None:
        with self._writing() as db:
            for statement in _TABLES:
                db.execute(statement)
            found = db.execute(
                "SELECT version FROM affordance_schema WHERE component = ?", (_COMPONENT,)
            ).fetchone()
            if found is None:
                db.execute(
                    "INSERT INTO affordance_schema VALUES (?, ?)", (_COMPONENT, SCHEMA_VERSION)
                )
            elif found[0] != SCHEMA_VERSION:
                raise ConversationStoreError(
                    f"{self.path} holds conversations in schema version {found[0]!r}, which "
                    f"this affordance (schema version {SCHEMA_VERSION}) does not read; upgrade "
                    "affordance or use another file"
                )

    @contextmanager
    def _failures(self, action: str, conversation_id: str | None = None) -> Iterator[None]:
        """SQLite's own errors (a lock not granted within ``timeout``, a file that cannot be
        opened, a disk that is full) as :class:`ConversationStoreError` saying what failed."""
        try:
            yield
        except sqlite3.Error as error:
            what = f"{action} conversation {conversation_id!r}" if conversation_id else action
            raise ConversationStoreError(
                f"cannot {what} in {self.path}: {error}", conversation_id=conversation_id
            ) from error

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction holding the database's write lock from its start (so a length
        read in it stays true until it commits); rolled back if the block or the commit fails."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise ConversationStoreError(f"{self!r} is closed")
        shared = self._shared
        if shared is not None:
            with self._lock:
                yield shared
            return
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = self._connect()
        yield db

    def _connect(self) -> sqlite3.Connection:
        """A connection for the calling thread (or the shared ``:memory:`` one); the
        connections of threads that have ended are closed first."""
        db = sqlite3.connect(
            self.path,
            timeout=self.timeout,
            isolation_level=None,  # transactions are begun and ended here, explicitly
            check_same_thread=False,  # used by one thread, but closed by whichever calls close()
        )
        if self.path != ":memory:":
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # WAL stays consistent; fsync at checkpoints
        with self._lock:
            if self._closed:
                db.close()
                raise ConversationStoreError(f"{self!r} is closed")
            ended = [thread for thread in self._opened if not thread.is_alive()]
            for thread in ended:
                self._opened.pop(thread).close()
            if self.path != ":memory:":
                self._opened[threading.current_thread()] = db
        return db
