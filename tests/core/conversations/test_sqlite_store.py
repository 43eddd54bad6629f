"""The SQLite conversation store: appends land in order and whole, a racing writer gets a
conflict instead of interleaving, and writers in threads and in other processes lose nothing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from affordance.conversations import (
    Conversation,
    ConversationConflictError,
    SQLiteConversationStore,
)
from affordance.errors import TranscriptError

TURN = (
    UserMessage("Where is A-1001?"),
    AssistantMessage(
        None,
        (ToolCall("call_1", "lookup", '{"order_id": "A-1001"}'),),
        ({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA"},),
        "openai",
    ),
    ToolResultMessage("call_1", "lookup", "shipped"),
    AssistantMessage("It has shipped."),
)


@pytest.fixture(params=["file", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SQLiteConversationStore]:
    path = tmp_path / "chats.db" if request.param == "file" else ":memory:"
    made = SQLiteConversationStore(path)
    yield made
    made.close()


def test_a_conversation_reloads_equal_to_what_was_appended(store):
    assert store.load("c1") == ()
    assert store.append("c1", TURN[:2]) == 2
    assert store.append("c1", TURN[2:], expected=2) == 4
    assert store.load("c1") == TURN
    assert store.load("other") == ()


def test_the_handle_loads_and_appends_its_conversation(store):
    chat = store.conversation("c1")
    assert chat == Conversation(store, "c1")
    chat.append(TURN[:1])
    assert chat.load() == TURN[:1]


def test_a_writer_that_read_an_older_length_gets_a_conflict_and_appends_nothing(store):
    store.append("c1", TURN[:1])
    with pytest.raises(ConversationConflictError) as conflict:
        store.append("c1", TURN[1:], expected=0)
    assert (conflict.value.expected, conflict.value.found) == (0, 1)
    assert store.load("c1") == TURN[:1]


def test_list_shows_the_most_recently_appended_first_and_delete_forgets(store):
    store.append("a", TURN[:1])
    store.append("b", TURN[:1])
    store.append("a", TURN[1:2])
    assert store.list() == ("a", "b")
    store.delete("a")
    assert (store.list(), store.load("a")) == (("b",), ())
    store.delete("never")  # nothing to forget: no error


def test_what_the_format_cannot_hold_is_refused_before_anything_is_stored(store):
    bad = AssistantMessage(None, (), ({"value": float("nan")},))
    with pytest.raises(TranscriptError):
        store.append("c1", (TURN[0], bad))
    assert store.load("c1") == ()


def test_a_stored_message_that_does_not_read_is_an_error_naming_it(tmp_path):
    path = tmp_path / "chats.db"
    store = SQLiteConversationStore(path)
    store.append("c1", TURN[:2])
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE affordance_messages SET message = '{' WHERE position = 1")
    store = SQLiteConversationStore(path)
    with pytest.raises(TranscriptError, match="stored message 1 of conversation 'c1'"):
        store.load("c1")
    store.close()


def test_threads_appending_to_one_store_lose_nothing(tmp_path):
    store = SQLiteConversationStore(tmp_path / "chats.db")
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        try:
            for index in range(50):
                store.append(name, (UserMessage(f"{name}-{index}"),))
                store.append("shared", (UserMessage(f"{name}-{index}"),))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    shared = [m.text for m in store.load("shared") if isinstance(m, UserMessage)]
    assert len(shared) == 200
    for i in range(4):
        mine = [text for text in shared if text.startswith(f"t{i}-")]
        assert mine == [f"t{i}-{n}" for n in range(50)]  # each writer's order kept
        assert len(store.load(f"t{i}")) == 50
    store.close()


WRITER = """
import sys
from affordance.adapters import UserMessage
from affordance.conversations import SQLiteConversationStore

path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
store = SQLiteConversationStore(path)
for index in range(count):
    store.append("shared", (UserMessage(f"{name}-{index}"), UserMessage(f"{name}-{index}b")))
    store.append(name, (UserMessage(f"{name}-{index}"),))
store.close()
"""


def test_two_processes_appending_to_one_conversation_lose_nothing(tmp_path):
    path = tmp_path / "chats.db"
    SQLiteConversationStore(path).close()  # the tables exist before the writers start
    started = time.monotonic()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, "400"])
        for name in ("p1", "p2")
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    store = SQLiteConversationStore(path)
    shared = [m.text for m in store.load("shared") if isinstance(m, UserMessage)]
    assert len(shared) == 1600
    for name in ("p1", "p2"):
        mine = [text for text in shared if text.startswith(f"{name}-")]
        expected = [f"{name}-{i}{suffix}" for i in range(400) for suffix in ("", "b")]
        assert mine == expected  # every message once, each batch whole and in order
        assert len(store.load(name)) == 400
    store.close()
    assert time.monotonic() - started < 120
