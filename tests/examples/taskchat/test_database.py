"""The schema check: a new database is created; any other schema version is refused. The
default database is in the user's data folder; a folder that does not exist is not made up."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from taskchat.app import create_app
from taskchat.database import (
    SCHEMA_VERSION,
    DatabaseUnavailableError,
    SchemaError,
    open_database,
)
from taskchat.settings import Settings
from taskchat.store import TaskStore


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def test_an_empty_database_gets_the_schema_and_its_version(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    open_database(_url(path)).close()

    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("select name from sqlite_master")}
        version = connection.execute("select value from taskchat_meta").fetchone()[0]
    assert {"tasks", "task_tags", "attachments", "conversations", "conversation_messages"} <= tables
    assert version == str(SCHEMA_VERSION)
    open_database(_url(path)).close()  # and it opens again


def _set_version(path: Path, version: str) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("update taskchat_meta set value = ?", (version,))


def test_a_database_from_an_older_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    open_database(_url(path)).close()
    _set_version(path, "0")

    with pytest.raises(SchemaError, match="schema version 0, older than this taskchat's 1"):
        open_database(_url(path))


def test_a_database_from_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    open_database(_url(path)).close()
    _set_version(path, "7")

    with pytest.raises(SchemaError, match=r"schema version 7, newer .* upgrade taskchat"):
        open_database(_url(path))


def test_a_database_of_something_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("create table tasks (id integer primary key, what text)")

    with pytest.raises(SchemaError, match="not a taskchat database"):
        open_database(_url(path))


def test_an_in_memory_sqlite_database_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match=r"use a file, e.g. sqlite:///taskchat.db"):
        open_database("sqlite://")


def test_writers_wait_for_each_other_instead_of_failing(tmp_path: Path) -> None:
    """Transactions begin IMMEDIATE, so concurrent writers queue on SQLite's lock."""
    database = open_database(_url(tmp_path / "busy.db"))
    store = TaskStore(database)
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for i in range(10):
                task = store.create(title=f"t{n}-{i}")
                store.update(task.id, {"status": "completed"})
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    database.close()

    assert errors == []


# -- where the database is, and one that cannot be opened ------------------------------------------


def test_the_default_database_is_in_the_users_data_folder(tmp_path: Path) -> None:
    environ = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path / "home")}

    assert Settings.from_env(environ).database_url == (
        f"sqlite:///{tmp_path / 'data' / 'taskchat' / 'taskchat.db'}"
    )
    # unset, or relative (which the XDG rule ignores): ~/.local/share
    home_data = f"sqlite:///{tmp_path / 'home' / '.local' / 'share' / 'taskchat' / 'taskchat.db'}"
    assert Settings.from_env({"HOME": str(tmp_path / "home")}).database_url == home_data
    assert Settings.from_env({**environ, "XDG_DATA_HOME": "data"}).database_url == home_data
    given = Settings.from_env({**environ, "TASKCHAT_DATABASE_URL": "sqlite:///x.db"})
    assert given.database_url == "sqlite:///x.db"


def test_the_app_creates_the_data_folder_for_its_default_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("TASKCHAT_DATABASE_URL", "TASKCHAT_PROVIDER", "TASKCHAT_TEMPORAL"):
        monkeypatch.delenv(name, raising=False)

    with TestClient(create_app()) as client:
        assert client.post("/api/v1/chat", json={"message": "add a task to a"}).status_code == 200

    with sqlite3.connect(tmp_path / "data" / "taskchat" / "taskchat.db") as connection:
        assert connection.execute("select title from tasks").fetchall() == [("A",)]


def test_another_missing_folder_is_not_created(tmp_path: Path) -> None:
    url = _url(tmp_path / "typo" / "x.db")

    with pytest.raises(DatabaseUnavailableError) as raised:
        open_database(url)

    assert str(raised.value) == (
        f"cannot open database {url!r}: the folder {tmp_path / 'typo'} does not exist; create "
        "it or pass another --database-url"
    )
    assert not (tmp_path / "typo").exists()
