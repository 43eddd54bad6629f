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
from conversation_contract import CHECKS, TURN

from affordance.adapters import UserMessage
from affordance.conversations import (
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
