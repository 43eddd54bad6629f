"""Conversations persist their transcript and pending turn; concurrent writers conflict."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from taskchat.conversations import (
    ConversationConflictError,
    ConversationStore,
    PendingCall,
    PendingTurn,
)
from taskchat.database import open_database


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    database = open_database(f"sqlite:///{tmp_path / 'c.db'}")
    yield ConversationStore(database)
    database.close()


def test_a_transcript_and_its_pending_turn_read_back_equal(store: ConversationStore) -> None:
    turn = AssistantMessage(
        "I'll delete it once you confirm.",
        (
            ToolCall("a", "create_task", '{"title": "x"}'),
            ToolCall("b", "delete_task", {"task_id": 1}),
        ),
        ({"type": "reasoning", "id": "rs_1"},),
    )
    messages = (UserMessage("do both"), turn)
    pending = PendingTurn(
        run_id="run-1",
        turn=2,
        calls=(PendingCall("b", "delete_task", {"task_id": 1}),),
        settled=(ToolResultMessage("a", "create_task", "Created task #2.", False),),
    )

    saved = store.save(store.new(), messages, pending)
    loaded = store.load(saved.id)

    assert loaded is not None
    assert (loaded.messages, loaded.pending, loaded.revision) == (messages, pending, 1)


def test_appending_keeps_the_order_and_clears_the_pending_turn(store: ConversationStore) -> None:
    first = store.save(store.new(), (UserMessage("one"),), None)
    second = store.save(first, (AssistantMessage("two"), UserMessage("three")), None)

    loaded = store.load(second.id)

    assert loaded is not None
    assert [getattr(m, "text", None) for m in loaded.messages] == ["one", "two", "three"]
    assert (loaded.revision, loaded.pending) == (2, None)


def test_a_stale_writer_conflicts_and_changes_nothing(store: ConversationStore) -> None:
    first = store.save(store.new(), (UserMessage("one"),), None)
    store.save(first, (UserMessage("winner"),), None)

    with pytest.raises(ConversationConflictError):
        store.save(first, (UserMessage("loser"),), None)

    loaded = store.load(first.id)
    assert loaded is not None
    assert [getattr(m, "text", None) for m in loaded.messages] == ["one", "winner"]


def test_an_unknown_conversation_is_none(store: ConversationStore) -> None:
    assert store.load("f" * 32) is None
