"""taskchat's database as a conversation store: the contract every store keeps, its own limits
and errors, its writes and the chat's own never interleaving, and a core run appending to a
conversation the chat's own store then reads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conversation_contract import CHECKS, TURN
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from affordance import MarkdownSection, PromptTemplate
from affordance.adapters import UserMessage
from affordance.errors import ConversationConflictError, TranscriptError
from affordance.testing import ScriptedAdapter, text
from taskchat.conversation_store import DatabaseConversations
from taskchat.conversations import ConversationConflictError as ChatConflictError
from taskchat.conversations import ConversationStore
from taskchat.database import Database, MessageRow, open_database


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    opened = open_database(f"sqlite:///{tmp_path / 'taskchat.db'}")
    yield opened
    opened.close()


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_database_keeps_the_store_contract(database, check):
    check(DatabaseConversations(database))


def test_an_append_bumps_the_revision_the_chat_checks(database):
    chat_store = ConversationStore(database)
    chat = chat_store.save(chat_store.new(), TURN[:1], None)  # the chat read it at revision 1
    assert DatabaseConversations(database).append(chat.id, TURN[1:2], expected=1) == 2
    with pytest.raises(ChatConflictError):
        chat_store.save(chat, TURN[1:], None)
    reread = chat_store.load(chat.id)
    assert reread is not None
    assert (reread.messages, reread.revision) == (TURN[:2], 2)


def test_conversations_the_chat_created_without_messages_are_not_listed(database):
    chat_store = ConversationStore(database)
    empty = chat_store.save(chat_store.new(), (), None)
    store = DatabaseConversations(database)
    store.append("c1", TURN[:1])
    assert store.list() == ("c1",)
    assert store.append(empty.id, TURN[:1], expected=0) == 1  # it starts at length 0


def test_ids_longer_than_the_table_holds_are_refused(database):
    store = DatabaseConversations(database)
    with pytest.raises(ValueError, match="at most 32 characters"):
        store.append("x" * 33, TURN[:1])
    assert store.append("x" * 32, TURN[:1]) == 1


def test_a_corrupted_row_is_an_error_naming_it(database):
    store = DatabaseConversations(database)
    store.append("c1", TURN[:3])
    with database.sessions.begin() as session:
        session.execute(
            update(MessageRow).where(MessageRow.seq == 1).values(payload={"format": "other"})
        )
    with pytest.raises(TranscriptError, match="stored message 1 of conversation 'c1' does not"):
        store.load("c1")


def test_a_writer_that_lost_the_race_to_create_a_conversation_tries_again(database, monkeypatch):
    store = DatabaseConversations(database)
    once = store._append

    def racing(conversation_id, rows, expected):
        monkeypatch.setattr(store, "_append", once)  # the second attempt goes through
        once("c1", [rows[0]], None)  # another writer creates it first ...
        raise IntegrityError("INSERT INTO conversations", {}, Exception("duplicate key"))

    monkeypatch.setattr(store, "_append", racing)
    with pytest.raises(ConversationConflictError) as conflict:  # ... so a checked append conflicts
        store.append("c1", TURN[1:2], expected=0)
    assert (conflict.value.expected, conflict.value.found) == (0, 1)
    monkeypatch.setattr(store, "_append", racing)
    assert store.append("c1", TURN[1:2]) == 3  # and an unchecked one lands after it


def test_a_run_appends_to_a_conversation_the_chat_then_reads(database):
    store = DatabaseConversations(database)
    adapter = ScriptedAdapter([text("Hello! What shall we track?")])
    assistant = PromptTemplate(
        name="assistant", sections=[MarkdownSection(title="Role", template="Track tasks.")]
    )
    adapter.evaluate(
        assistant,
        messages=(UserMessage("hi"),),
        conversation=store.conversation("chat-1"),
    )
    chat = ConversationStore(database).load("chat-1")
    assert chat is not None
    assert [type(m).__name__ for m in chat.messages] == ["UserMessage", "AssistantMessage"]
    assert chat.revision == 1


def test_threads_appending_checked_lose_nothing(database):
    store = DatabaseConversations(database)
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        chat = store.conversation("shared")
        try:
            start.wait()
            expected = 0
            for index in range(25):
                while True:
                    try:
                        expected = chat.append((UserMessage(f"{name}-{index}"),), expected=expected)
                        break
                    except ConversationConflictError as conflict:
                        expected = conflict.found
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(f"t{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    shared = [m.text for m in store.load("shared") if isinstance(m, UserMessage)]
    assert len(shared) == 100
    for i in range(4):
        assert [text for text in shared if text.startswith(f"t{i}-")] == [
            f"t{i}-{n}" for n in range(25)
        ]
