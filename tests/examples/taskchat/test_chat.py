"""ChatService: events for the streaming endpoint, and the edges of persistence: racing
requests, a failing model, a cancelled request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from affordance import PromptEvaluationError, ToolCallFinished
from affordance.adapters import ModelRequest, ProviderTurn, UserMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from taskchat.chat import ChatEvent, ChatService
from taskchat.conversations import ConversationStore

Chat = Any


def _service(client: TestClient) -> ChatService:
    service: ChatService = client.app.state.services.chat  # type: ignore[attr-defined]
    return service


def test_the_listener_hears_every_tool_call_as_it_finishes(client: TestClient, chat: Chat) -> None:
    chat.say("add a task to water the plants")
    chat.say("delete water the plants")
    heard: list[ChatEvent] = []
    service = _service(client)

    async def answer() -> None:
        pending = chat.last["pending_confirmations"][0]["call_id"]
        await service.chat(
            conversation_id=chat.conversation_id,
            message="",
            confirmations={pending: "approve"},
            listener=heard.append,
        )

    asyncio.run(answer())

    finished = [e for e in heard if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.success) for e in finished] == [("delete_task", True)]
    assert [e.kind for e in heard][:2] == ["chat_started", "tool_call_finished"]


def test_requests_on_one_conversation_take_turns(client: TestClient, chat: Chat) -> None:
    chat.say("add a task to a")
    service = _service(client)

    async def both() -> list[str]:
        replies = await asyncio.gather(
            *(
                service.chat(conversation_id=chat.conversation_id, message=m, confirmations={})
                for m in ("add a task to b", "add a task to c")
            )
        )
        return [r.reply for r in replies]

    replies = asyncio.run(both())

    assert sorted(replies) == [
        "Created task #2 “B” (priority medium).",
        "Created task #3 “C” (priority medium).",
    ]
    history = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()
    assert [m["text"] for m in history["messages"] if m["role"] == "user"][1:] in (
        ["add a task to b", "add a task to c"],
        ["add a task to c", "add a task to b"],
    )


def test_a_conversation_changed_by_another_process_meanwhile_is_a_409(
    make_app: Callable[..., Any], new_chat: Callable[[TestClient], Chat]
) -> None:
    holder: dict[str, Any] = {}

    def meddle(request: ModelRequest) -> ProviderTurn:
        """Another server appends to the conversation while this one is thinking."""
        other = ConversationStore(holder["client"].app.state.services.database)
        conversation = other.load(holder["chat"].conversation_id)
        other.save(conversation, (UserMessage("from elsewhere"),), None)
        return text("too late")

    with TestClient(make_app(adapter=ScriptedAdapter([text("hi"), meddle]))) as client:
        chat = new_chat(client)
        holder.update(client=client, chat=chat)
        chat.say("hello")

        response = client.post(
            "/api/v1/chat", json={"conversation_id": chat.conversation_id, "message": "again"}
        )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conversation_busy"


def test_confirmed_calls_are_kept_when_the_model_then_fails(
    make_app: Callable[..., Any], new_chat: Callable[[TestClient], Chat], tasks: Any
) -> None:
    script = ScriptedAdapter(
        [
            tool_calls(tool_call("create_task", {"title": "Doomed"})),
            text("created"),
            tool_calls(tool_call("delete_task", {"task_id": 1}, call_id="del")),
            PromptEvaluationError("provider down", status=503),
            text("it was deleted earlier"),
        ]
    )
    with TestClient(make_app(adapter=script)) as client:
        chat = new_chat(client)
        chat.say("create")
        chat.say("delete")

        failed = client.post(
            "/api/v1/chat",
            json={"conversation_id": chat.conversation_id, "confirmations": {"del": "approve"}},
        )

        assert failed.status_code == 502
        assert tasks(client) == []  # the approved call ran, once
        history = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()
        assert history["pending_confirmations"] == []
        assert history["messages"][-1] == {
            "role": "tool",
            "text": "Deleted task #1.",
            "name": "delete_task",
            "success": True,
            "declined": False,
        }
        assert chat.say("what happened?")["reply"] == "it was deleted earlier"
    script.assert_complete()


def test_a_cancelled_request_stores_nothing_of_its_run(
    make_app: Callable[..., Any], new_chat: Callable[..., Chat], held_model: Any
) -> None:
    """Cancelled while the reply streams (as when a streaming client leaves): the conversation
    is as it was, and the next request goes on from there."""
    model = held_model([text("hello"), text("a long answer"), text("again")])
    with TestClient(make_app(adapter=model)) as client:
        chat = new_chat(client)
        chat.say("hi")
        before = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()
        service = _service(client)
        gate = model.hold()
        heard: list[ChatEvent] = []

        async def cancelled_while_speaking() -> None:
            running = asyncio.ensure_future(
                service.chat(
                    conversation_id=chat.conversation_id,
                    message="tell me more",
                    confirmations={},
                    listener=heard.append,
                )
            )
            while not gate.reached.is_set():  # the first piece of the reply is out
                await asyncio.sleep(0.005)
            running.cancel()
            with pytest.raises(asyncio.CancelledError):
                await running

        asyncio.run(cancelled_while_speaking())

        assert gate.ended.is_set()
        assert not gate.released.is_set()
        assert [e.kind for e in heard][-1] == "text_delta"
        after = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()
        assert after == before
        assert chat.say("still there?")["reply"] == "again"


def test_confirmed_calls_run_to_the_end_and_are_kept_when_the_request_is_cancelled(
    make_app: Callable[..., Any], new_chat: Callable[..., Chat], tasks: Any
) -> None:
    """Cancelled after the first of two approved calls: the second still runs, both results
    are stored, nothing waits any more, and the model was not asked."""
    both = tool_calls(
        tool_call("delete_task", {"task_id": 1}, call_id="d1"),
        tool_call("delete_task", {"task_id": 2}, call_id="d2"),
    )
    script = ScriptedAdapter(
        [
            tool_calls(tool_call("create_task", {"title": "A"})),
            tool_calls(tool_call("create_task", {"title": "B"})),
            text("created both"),
            both,
            text("what next?"),
        ]
    )
    with TestClient(make_app(adapter=script)) as client:
        chat = new_chat(client)
        chat.say("create a and b")
        asked = chat.say("delete both")
        assert [p["call_id"] for p in asked["pending_confirmations"]] == ["d1", "d2"]
        service = _service(client)

        async def cancelled_between_the_calls() -> None:
            def heard(event: ChatEvent) -> None:
                if isinstance(event, ToolCallFinished) and event.call_id == "d1":
                    running.cancel()

            running = asyncio.ensure_future(
                service.chat(
                    conversation_id=chat.conversation_id,
                    message="",
                    confirmations={"d1": "approve", "d2": "approve"},
                    listener=heard,
                )
            )
            with pytest.raises(asyncio.CancelledError):
                await running

        asyncio.run(cancelled_between_the_calls())

        assert tasks(client) == []
        history = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()
        assert history["pending_confirmations"] == []
        assert [(m["role"], m["text"]) for m in history["messages"][-2:]] == [
            ("tool", "Deleted task #1."),
            ("tool", "Deleted task #2."),
        ]
        assert script.remaining == 1  # the model was not asked about the results
        assert chat.say("anything else?")["reply"] == "what next?"
