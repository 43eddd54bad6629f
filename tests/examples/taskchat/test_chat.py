"""ChatService: events for the streaming endpoint, and the edges of persistence."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from affordance import PromptEvaluationError
from affordance.adapters import ModelRequest, ProviderTurn, UserMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from taskchat.chat import ChatService, ToolFinished
from taskchat.conversations import ConversationStore

Chat = Any


def _service(client: TestClient) -> ChatService:
    service: ChatService = client.app.state.services.chat  # type: ignore[attr-defined]
    return service


def test_the_listener_hears_every_tool_call_as_it_finishes(client: TestClient, chat: Chat) -> None:
    chat.say("add a task to water the plants")
    chat.say("delete water the plants")
    heard: list[ToolFinished] = []
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

    assert [(e.outcome.name, e.outcome.success) for e in heard] == [("delete_task", True)]


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
        }
        assert chat.say("what happened?")["reply"] == "it was deleted earlier"
    script.assert_complete()
