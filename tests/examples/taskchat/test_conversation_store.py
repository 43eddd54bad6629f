"""taskchat's database as a conversation store: the contract every store keeps, and a core run
appending to a conversation the chat's own store then reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conversation_contract import CHECKS

from affordance import MarkdownSection, PromptTemplate
from affordance.adapters import UserMessage
from affordance.testing import ScriptedAdapter, text
from taskchat.conversation_store import DatabaseConversations
from taskchat.conversations import ConversationStore
from taskchat.database import Database, open_database


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    opened = open_database(f"sqlite:///{tmp_path / 'taskchat.db'}")
    yield opened
    opened.close()


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_the_database_keeps_the_store_contract(database, check):
    check(DatabaseConversations(database))


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
