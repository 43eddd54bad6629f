"""The database: tables, the engine (SQLite by default, any SQLAlchemy URL), and the schema check.

The schema carries a version in ``taskchat_meta``. Opening a database creates the tables when it
is empty and refuses one written by another schema version (or by something else altogether),
so an old database is never silently misread. There are no migrations yet: when the schema
changes, bump :data:`SCHEMA_VERSION` and add a migration step here.

A URL that cannot be opened — not a URL, a database type SQLAlchemy does not know, a driver
that is not installed, a SQLite file in a folder that does not exist, a server that does not
answer — is a :class:`DatabaseUnavailableError` saying what to do, never SQLAlchemy's own error.
The folder of a SQLite file must exist, except taskchat's own data folder (``data_home.py``,
where the default database lives), which is created.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    Engine,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    event,
    insert,
    inspect,
    select,
)
from sqlalchemy.engine import URL, Dialect, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, sessionmaker
from sqlalchemy.types import TypeDecorator

from taskchat.data_home import user_data_folder

__all__ = [
    "SCHEMA_VERSION",
    "AttachmentRow",
    "Base",
    "ConversationRow",
    "Database",
    "DatabaseUnavailableError",
    "MessageRow",
    "SchemaError",
    "TagRow",
    "TaskRow",
    "open_database",
]

SCHEMA_VERSION = 1
_VERSION_KEY = "schema_version"


class SchemaError(Exception):
    """The database was written by another schema version, or is not a taskchat database."""


class DatabaseUnavailableError(Exception):
    """The database cannot be opened: ``url`` (its password hidden) and ``reason``, which ends
    with what to do about it."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"cannot open database {url!r}: {reason}")
        self.url = url
        self.reason = reason


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend.

    SQLite keeps no time zone, so values are stored as naive UTC and marked UTC when read.
    """

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("taskchat stores aware datetimes only")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


class Base(DeclarativeBase):
    pass


class MetaRow(Base):
    __tablename__ = "taskchat_meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(255))


class TaskRow(Base):
    __tablename__ = "tasks"
    # ids are never reused, even after the newest task is deleted: a conversation that
    # mentions task #7 must not find a different task #7 later
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    title: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    priority: Mapped[str] = mapped_column(String(16))
    eta: Mapped[datetime | None] = mapped_column(UtcDateTime, index=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    tags: Mapped[list[TagRow]] = relationship(cascade="all, delete-orphan", order_by="TagRow.tag")
    attachments: Mapped[list[AttachmentRow]] = relationship(
        cascade="all, delete-orphan", order_by="AttachmentRow.id"
    )


class TagRow(Base):
    __tablename__ = "task_tags"

    task_id: Mapped[int] = mapped_column(
        ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True
    )
    tag: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)


class AttachmentRow(Base):
    __tablename__ = "attachments"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    task_id: Mapped[int] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    url: Mapped[str] = mapped_column(String(2048))
    title: Mapped[str | None] = mapped_column(String(255))
    content: Mapped[str | None] = mapped_column(Text)
    refreshed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ConversationRow(Base):
    """A chat; ``revision`` guards against two requests writing the same conversation at once.

    ``pending`` holds the tool calls that wait for the user's confirmation (see
    ``conversations.py``); the transcript itself is in ``conversation_messages``.
    """

    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    revision: Mapped[int] = mapped_column(Integer)
    pending: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class MessageRow(Base):
    """One message of a conversation's transcript, in the provider-neutral form, as JSON."""

    __tablename__ = "conversation_messages"

    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)


@dataclass(frozen=True, slots=True)
class Database:
    """An engine and its session factory; :func:`open_database` builds one."""

    engine: Engine
    sessions: sessionmaker[Any]

    def close(self) -> None:
        self.engine.dispose()


def open_database(url: str) -> Database:
    """Connect to ``url``, create the schema in an empty database, and check its version.

    Raises :class:`DatabaseUnavailableError` when it cannot be opened, :class:`SchemaError`
    when it holds something else than this taskchat's schema."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseUnavailableError(
            url,
            "it is not a SQLAlchemy URL (such as sqlite:////path/to/taskchat.db or "
            "postgresql://user@host/taskchat); pass another --database-url",
        ) from None
    engine = _engine(parsed)
    try:
        _ensure_schema(engine, parsed)
    except DBAPIError as error:
        engine.dispose()
        raise DatabaseUnavailableError(
            _shown(parsed),
            f"{_first_line(error.orig or error)}; check the URL (and that the database server "
            "runs) or pass another --database-url",
        ) from None
    except BaseException:
        engine.dispose()
        raise
    return Database(engine, sessionmaker(engine, expire_on_commit=False))


_DIALECT_ALIASES = {"postgres": "postgresql"}  # names SQLAlchemy once took, or others use


def _engine(parsed: URL) -> Engine:
    try:
        if parsed.get_backend_name() != "sqlite":
            return create_engine(parsed, pool_pre_ping=True)
        return _sqlite_engine(parsed)
    except NoSuchModuleError:
        backend = parsed.get_backend_name()
        known = _DIALECT_ALIASES.get(backend)
        hint = f"write {known}:// instead of {backend}://" if known else "check its scheme"
        raise DatabaseUnavailableError(
            _shown(parsed),
            f"SQLAlchemy has no database type {parsed.drivername!r}; {hint} or pass another "
            "--database-url",
        ) from None
    except ImportError as error:
        raise DatabaseUnavailableError(
            _shown(parsed),
            f"its driver, the Python module {error.name or parsed.drivername!r}, is not "
            "installed; install it or pass another --database-url",
        ) from None


def _sqlite_engine(parsed: URL) -> Engine:
    if parsed.database in (None, "", ":memory:"):
        raise ValueError(
            "an in-memory SQLite database cannot be shared by the server's threads; "
            "use a file, e.g. sqlite:///taskchat.db"
        )
    if parsed.query.get("uri") != "true":  # a file: URI names its file in its own way
        _ensure_folder(Path(parsed.database).absolute().parent, parsed)
    engine = create_engine(
        parsed, connect_args={"check_same_thread": False}, pool_size=10, max_overflow=20
    )

    @event.listens_for(engine, "connect")
    def _configure(connection: Any, record: Any) -> None:
        # Transactions are begun below, not by the sqlite3 module, so writers take the lock
        # up front (BEGIN IMMEDIATE) and wait for each other instead of failing mid-way.
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _ensure_folder(folder: Path, parsed: URL) -> None:
    """The SQLite file's folder must exist; taskchat's own data folder is created."""
    if folder.is_dir():
        return
    another = "pass another --database-url"
    if folder.exists():
        reason = f"{folder} is not a folder; {another}"
    elif folder == user_data_folder():
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            reason = f"the folder {folder} cannot be created ({error.strerror}); {another}"
        else:
            return
    else:
        reason = f"the folder {folder} does not exist; create it or {another}"
    raise DatabaseUnavailableError(_shown(parsed), reason)


def _shown(parsed: URL) -> str:
    return parsed.render_as_string(hide_password=True)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _ensure_schema(engine: Engine, parsed: URL) -> None:
    where = _shown(parsed)
    with engine.begin() as connection:
        tables = set(inspect(connection).get_table_names())
        if not tables:
            Base.metadata.create_all(connection)
            connection.execute(insert(MetaRow).values(key=_VERSION_KEY, value=str(SCHEMA_VERSION)))
            return
        if MetaRow.__tablename__ not in tables:
            raise SchemaError(
                f"the database at {where} has tables but no taskchat schema version: it is not "
                "a taskchat database. Point --database-url at a new or a taskchat database."
            )
        found = connection.execute(
            select(MetaRow.value).where(MetaRow.key == _VERSION_KEY)
        ).scalar_one_or_none()
        version = int(found) if found is not None and found.isdigit() else None
        if version == SCHEMA_VERSION:
            return
        if version is None:
            raise SchemaError(f"the database at {where} has an unreadable schema version {found!r}")
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"the database at {where} has schema version {version}, newer than this "
                f"taskchat's {SCHEMA_VERSION}: upgrade taskchat to use it"
            )
        raise SchemaError(
            f"the database at {where} has schema version {version}, older than this taskchat's "
            f"{SCHEMA_VERSION}, and no migration from it exists; export its tasks or use a new "
            "database"
        )
