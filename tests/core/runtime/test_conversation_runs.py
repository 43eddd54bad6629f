"""``conversation=``: a run loads the conversation's history before the caller's messages and
appends what it added — each message once, also when it waits for confirmation, stops at a
limit or its stream is left early — on every entry point alike."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run

from affordance import (
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolCallFinished,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
    approve,
)
from affordance.adapters import AssistantMessage, Message, ToolResultMessage, UserMessage
from affordance.conversations import (
    Conversation,
    ConversationConflictError,
    SQLiteConversationStore,
)
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Order:
    order_id: str


@pytest.fixture
def store() -> Iterator[SQLiteConversationStore]:
    made = SQLiteConversationStore(":memory:")
    yield made
    made.close()


def prompt(dropped: list[str] | None = None) -> PromptTemplate[None]:
    def lookup(params: Order) -> ToolResult[str]:
        return ToolResult.ok(f"{params.order_id} shipped")

    def cancel(params: Order) -> ToolResult[str]:
        assert dropped is not None
        dropped.append(params.order_id)
        return ToolResult.ok("cancelled")

    tools = [
        Tool[Order, str](name="lookup", description="Look up.", handler=lookup),
        Tool[Order, str](name="cancel", description="Cancel.", handler=cancel, destructive=True),
    ]
    return PromptTemplate(
        name="support",
        sections=[MarkdownSection(title="Role", template="Help with orders.", tools=tools)],
    )


def kinds(messages: tuple[Message, ...]) -> list[str]:
    return [type(m).__name__.removesuffix("Message") for m in messages]


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_chat_of_two_runs_keeps_each_message_once(store, driver):
    chat = store.conversation("c1")
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("lookup", {"order_id": "A-1"}, call_id="k1")),
            text("A-1 shipped."),
            text("You're welcome."),
        ]
    )
    support = prompt()
    first, _ = run(
        adapter, support, driver, messages=(UserMessage("Where is A-1?"),), conversation=chat
    )
    assert chat.load() == (UserMessage("Where is A-1?"), *first.messages)
    second, _ = run(adapter, support, driver, messages=(UserMessage("Thanks!"),), conversation=chat)
    sent = adapter.requests[-1].messages
    assert sent == (
        *first.messages[:0],
        UserMessage("Where is A-1?"),
        *first.messages,
        UserMessage("Thanks!"),
    )
    assert kinds(chat.load()) == [
        "User",
        "Assistant",
        "ToolResult",
        "Assistant",
        "User",
        "Assistant",
    ]
    assert chat.load()[-1] == AssistantMessage("You're welcome.")
    assert second.text == "You're welcome."


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_run_waiting_for_confirmation_appends_the_rest_once_resumed(store, driver):
    chat = store.conversation("c1")
    dropped: list[str] = []
    support = prompt(dropped)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("cancel", {"order_id": "A-1"}, call_id="x1")), text("Cancelled.")]
    )
    waiting, _ = run(
        adapter, support, driver, messages=(UserMessage("Cancel A-1"),), conversation=chat
    )
    assert waiting.needs_confirmation
    assert chat.load() == (UserMessage("Cancel A-1"),)  # the waiting turn is not whole yet
    done, _ = run(
        adapter, support, driver, session=waiting.session, confirmations={"x1": approve()}
    )
    assert (done.text, dropped) == ("Cancelled.", ["A-1"])
    assert kinds(chat.load()) == ["User", "Assistant", "ToolResult", "Assistant"]


def test_a_run_stopped_at_a_limit_appends_what_is_whole_and_the_rest_on_resume(store):
    chat = store.conversation("c1")
    support = prompt()
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"order_id": "A-1"}, call_id="k1")), text("Shipped.")]
    )
    with pytest.raises(UsageLimitExceeded) as stopped:
        adapter.evaluate(
            support,
            messages=(UserMessage("A-1?"),),
            conversation=chat,
            limits=UsageLimits(requests=1),
        )
    assert kinds(chat.load()) == ["User", "Assistant", "ToolResult"]
    adapter.evaluate(support, session=stopped.value.session, resume=stopped.value.run_id)
    assert kinds(chat.load()) == ["User", "Assistant", "ToolResult", "Assistant"]


@pytest.mark.parametrize("driver", ["stream", "astream"])
def test_a_stream_left_early_appends_what_is_whole(store, driver):
    import asyncio

    chat = store.conversation("c1")
    support = prompt()
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("lookup", {"order_id": "A-1"}, call_id="k1")), text("Shipped.")]
    )
    options = {"messages": (UserMessage("A-1?"),), "conversation": chat}
    if driver == "stream":
        with adapter.stream(support, **options) as events:
            for event in events:
                if isinstance(event, ToolCallFinished):
                    break
    else:

        async def leave() -> None:
            async with adapter.astream(support, **options) as events:
                async for event in events:
                    if isinstance(event, ToolCallFinished):
                        break

        asyncio.run(leave())
    saved = chat.load()
    assert kinds(saved) == ["User", "Assistant", "ToolResult"]
    assert isinstance(saved[2], ToolResultMessage)


def test_a_run_without_messages_keeps_its_prompt_as_the_first_message(store):
    chat = store.conversation("c1")
    support = prompt()
    adapter = ScriptedAdapter([text("Hello.")])
    adapter.evaluate(support, conversation=chat)
    first = chat.load()[0]
    assert isinstance(first, UserMessage)
    assert first.text == support.render().text


def test_another_writer_in_between_is_a_conflict_and_the_conversation_keeps_its_messages(store):
    chat = store.conversation("c1")
    chat.append((UserMessage("earlier"),))

    class Racing(Conversation):
        def load(self) -> tuple[Message, ...]:
            loaded = super().load()
            store.append("c1", (UserMessage("from elsewhere"),))  # lands after our read
            return loaded

    adapter = ScriptedAdapter([text("Hi.")])
    with pytest.raises(ConversationConflictError):
        adapter.evaluate(prompt(), messages=(UserMessage("hi"),), conversation=Racing(store, "c1"))
    assert chat.load() == (UserMessage("earlier"), UserMessage("from elsewhere"))
