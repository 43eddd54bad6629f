"""The SQLite conversation store: it keeps the store contract, appends land in order and whole, a
racing checked writer gets a conflict instead of interleaving, writers in threads and in other
processes lose nothing, and what it cannot read or do is a clear error."""

from __future__ import annotations

import itertools
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from conversation_contract import CHECKS, TURN

from affordance.adapters import UserMessage
from affordance.conversations import (
    ConversationConflictError,
    ConversationStoreError,
    SQLiteConversationStore,
)
from affordance.errors import TranscriptError


@pytest.fixture(params=["file", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLiteConversationStore]:
    path = tmp_path / "chats.db" if request.param == "file" else ":memory:"
    made = SQLiteConversationStore(path)
    yield made
    made.close()


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_store_keeps_the_contract(store, check):
    check(store)


def test_list_orders_by_the_last_append_without_a_clock(store):
    for conversation_id in ("a", "b", "c", "a"):
        store.append(conversation_id, TURN[:1])
    assert store.list() == ("a", "c", "b")


def test_a_file_reopened_holds_what_was_appended(tmp_path):
    path = tmp_path / "chats.db"
    with SQLiteConversationStore(path) as store:
        store.append("c1", TURN)
    with SQLiteConversationStore(str(path)) as store:
        assert store.load("c1") == TURN
        assert store.append("c1", TURN[:1], expected=4) == 5


def test_memory_stores_are_separate(tmp_path):
    with SQLiteConversationStore(":memory:") as one, SQLiteConversationStore(":memory:") as two:
        one.append("c1", TURN)
        assert two.load("c1") == ()


def test_the_tables_share_a_file_with_an_application(tmp_path):
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    with SQLiteConversationStore(path) as store:
        store.append("c1", TURN)
    with closing(sqlite3.connect(path)) as db, db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert {"users", "affordance_conversations", "affordance_messages"} <= tables


# -- what the store cannot read or do ---------------------------------------------------------


def corrupted(tmp_path: Path, stored: str | None) -> SQLiteConversationStore:
    """A store whose conversation ``c1`` has its second row replaced by ``stored`` (or lost)."""
    path = tmp_path / "chats.db"
    with SQLiteConversationStore(path) as store:
        store.append("c1", TURN[:3])
    with closing(sqlite3.connect(path)) as db, db:
        if stored is None:
            db.execute("DELETE FROM affordance_messages WHERE position = 1")
        else:
            db.execute("UPDATE affordance_messages SET message = ? WHERE position = 1", (stored,))
    return SQLiteConversationStore(path)


@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        ("{", "does not read: transcript: not JSON"),
        ('{"format": "other"}', "does not read: transcript at format: not a transcript"),
        ('{"format": "affordance.transcript", "version": 1, "messages": []}', "holds 0 messages"),
        (None, "is where message 1 should be: rows are lost"),
    ],
    ids=["not-json", "not-a-transcript", "no-message", "a-row-lost"],
)
def test_a_corrupted_row_is_an_error_naming_it(tmp_path, stored, problem):
    store = corrupted(tmp_path, stored)
    with pytest.raises(TranscriptError, match=r"stored message [12] of conversation 'c1'") as error:
        store.load("c1")
    assert problem in str(error.value)
    assert store.load("other") == ()  # the other conversations still read
    store.close()


def test_a_file_in_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "chats.db"
    SQLiteConversationStore(path).close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE affordance_schema SET version = 2 WHERE component = 'conversations'")
    with pytest.raises(ConversationStoreError, match="schema version 2"):
        SQLiteConversationStore(path)


def test_a_missing_folder_is_a_store_error(tmp_path):
    with pytest.raises(ConversationStoreError, match="cannot open the store"):
        SQLiteConversationStore(tmp_path / "nowhere" / "chats.db")


def test_a_lock_not_granted_in_time_is_a_store_error_and_stores_nothing(tmp_path):
    path = tmp_path / "chats.db"
    store = SQLiteConversationStore(path, timeout=0.05)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ConversationStoreError, match="append to conversation 'c1'") as error:
            store.append("c1", TURN)
        assert error.value.conversation_id == "c1"
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert store.load("c1") == ()
    assert store.append("c1", TURN[:1], expected=0) == 1  # the connection is usable again
    store.close()


@pytest.mark.parametrize("path", ["file", ":memory:"])
def test_a_closed_store_refuses_every_call(tmp_path, path):
    store = SQLiteConversationStore(tmp_path / "chats.db" if path == "file" else path)
    store.append("c1", TURN)
    store.close()
    store.close()  # twice: no error
    for call in (lambda: store.load("c1"), lambda: store.append("c1", TURN), store.list):
        with pytest.raises(ConversationStoreError, match="is closed"):
            call()


@pytest.mark.parametrize("bad", [0, -1, True, "5"])
def test_the_timeout_is_a_positive_number(bad):
    with pytest.raises(ValueError, match="timeout"):
        SQLiteConversationStore(":memory:", timeout=bad)


def test_the_connections_of_ended_threads_are_closed(tmp_path):
    store = SQLiteConversationStore(tmp_path / "chats.db")
    for index in range(5):
        thread = threading.Thread(target=store.append, args=(f"t{index}", TURN[:1]))
        thread.start()
        thread.join()
    assert len(store._opened) <= 2  # this thread's, and the last writer's until the next opens
    store.close()


def test_importing_affordance_does_not_import_the_conversations():
    code = (
        "import sys, affordance\n"
        "assert 'affordance.conversations' not in sys.modules\n"
        "import affordance.conversations\n"
        "assert not [m for m in sys.modules if m.startswith('affordance.runtime')]\n"
        "assert 'asyncio' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- concurrent writers -----------------------------------------------------------------------


def appended_checked(store: SQLiteConversationStore, conversation_id: str, text: str) -> int:
    """Append one message at the length last seen, again at the length found after a conflict;
    how many conflicts that took."""
    chat = store.conversation(conversation_id)
    expected, conflicts = len(chat.load()), 0
    while True:
        try:
            chat.append((UserMessage(text),), expected=expected)
        except ConversationConflictError as conflict:
            expected, conflicts = conflict.found, conflicts + 1
        else:
            return conflicts


def texts(store: SQLiteConversationStore, conversation_id: str) -> list[str]:
    return [m.text for m in store.load(conversation_id) if isinstance(m, UserMessage)]


def assert_each_writer_kept(shared: list[str], writers: list[str], expected: list[str]) -> None:
    """Every message once, and each writer's in its order (``expected`` holds a writer's
    messages as ``{w}`` templates)."""
    assert len(shared) == len(writers) * len(expected)
    for writer in writers:
        assert [text for text in shared if text.split("-")[0] == writer] == [
            item.format(w=writer) for item in expected
        ]


def writer_switches(shared: list[str]) -> int:
    """How often the next message is another writer's: the writers did run at once."""
    owners = [text.split("-")[0] for text in shared]
    return sum(one != next_one for one, next_one in itertools.pairwise(owners))


def test_threads_appending_to_one_store_lose_nothing(tmp_path):
    store = SQLiteConversationStore(tmp_path / "chats.db")
    errors: list[BaseException] = []
    conflicts: list[int] = []
    start = threading.Barrier(4)

    def writer(name: str) -> None:
        try:
            start.wait()
            for index in range(50):
                store.append(name, (UserMessage(f"{name}-{index}"),))
                store.append("shared", (UserMessage(f"{name}-{index}"),))
                conflicts.append(appended_checked(store, "checked", f"{name}-{index}"))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    names = [f"t{i}" for i in range(4)]
    each = [f"{{w}}-{n}" for n in range(50)]
    assert_each_writer_kept(texts(store, "shared"), names, each)
    assert_each_writer_kept(texts(store, "checked"), names, each)
    for name in names:
        assert texts(store, name) == [item.format(w=name) for item in each]
    assert writer_switches(texts(store, "shared")) > 3  # the writers did run at once
    assert sum(conflicts) > 0  # and the checked ones raced
    store.close()


WRITER = """
import sys
import time
from affordance.adapters import UserMessage
from affordance.conversations import ConversationConflictError, SQLiteConversationStore

path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = SQLiteConversationStore(path)
checked = store.conversation("checked")
expected, conflicts = len(checked.load()), 0
print("ready", flush=True)
sys.stdin.readline()  # both writers start together
for index in range(count):
    store.append("shared", (UserMessage(f"{name}-{index}"), UserMessage(f"{name}-{index}b")))
    store.append(name, (UserMessage(f"{name}-{index}"),))
    while True:
        try:
            expected = checked.append((UserMessage(f"{name}-{index}"),), expected=expected)
            break
        except ConversationConflictError as conflict:
            expected, conflicts = conflict.found, conflicts + 1
    time.sleep(0.001)  # lets the other writer in: SQLite does not queue waiting writers
store.close()
print(conflicts)
"""


def test_two_processes_appending_to_one_store_lose_nothing(tmp_path):
    path = tmp_path / "chats.db"
    SQLiteConversationStore(path).close()  # the tables exist before the writers start
    count = 200
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("p1", "p2")
    ]
    try:
        for writer in writers:
            assert writer.stdout is not None
            assert writer.stdout.readline() == "ready\n"
        for writer in writers:
            assert writer.stdin is not None
            writer.stdin.write("go\n")
            writer.stdin.close()
        assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
        conflicts = [int(writer.stdout.read()) for writer in writers if writer.stdout]
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
            if writer.stdout is not None:
                writer.stdout.close()
    with SQLiteConversationStore(path) as store:
        names = ["p1", "p2"]
        # every message once, each two-message batch whole and in its writer's order
        pairs = [f"{{w}}-{i}{suffix}" for i in range(count) for suffix in ("", "b")]
        assert_each_writer_kept(texts(store, "shared"), names, pairs)
        each = [f"{{w}}-{i}" for i in range(count)]
        assert_each_writer_kept(texts(store, "checked"), names, each)
        for name in names:
            assert texts(store, name) == [item.format(w=name) for item in each]
        assert writer_switches(texts(store, "shared")) > 10  # the writers did run at once
    assert sum(conflicts) > 0  # and the checked ones raced
