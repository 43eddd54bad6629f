"""The HTTP API end to end (TestClient, SQLite file, the offline model, a loopback GitHub)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from loopback import DelayedReply, JsonReply, LoopbackServer

from affordance import PromptEvaluationError
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

Chat = Any  # conftest's Chat helper
AppFactory = Callable[..., Any]
Tasks = Callable[[TestClient], list[dict[str, Any]]]

# -- the chat flows ------------------------------------------------------------------------------


def test_create_update_complete_and_list_through_chat(
    tasks: Tasks, chat: Chat, client: TestClient
) -> None:
    created = chat.say("add a task to buy milk due tomorrow with high priority tagged home")
    assert created["reply"] == (
        "Created task #1 “Buy milk” (priority high; due 2026-03-03; tagged home)."
    )
    assert [(r["name"], r["success"]) for r in created["tool_results"]] == [("create_task", True)]
    chat.say("create a task: renew passport -- bring the old photo")

    updated = chat.say("set the priority of renew passport to low")
    assert updated["reply"] == "Updated task #2 “Renew passport”: priority low."
    assert [r["name"] for r in updated["tool_results"]] == ["query_tasks", "update_task"]

    done = chat.say("mark buy milk done")
    assert done["reply"] == "Updated task #1 “Buy milk”: done."

    listed = chat.say("list my tasks")
    assert listed["reply"] == (
        "You have 2 tasks:\n"
        "- #1 Buy milk (completed, high priority, due 2026-03-03)\n"
        "- #2 Renew passport (pending, low priority)"
    )
    assert chat.say("show my completed tasks")["reply"].startswith("You have 1 completed task:")

    by_id = {t["id"]: t for t in tasks(client)}
    assert by_id[1]["status"] == "completed"
    assert by_id[1]["eta"] == "2026-03-03T00:00:00Z"
    assert by_id[1]["tags"] == ["home"]
    assert by_id[2]["priority"] == "low"
    assert by_id[2]["description"] == "bring the old photo"


def test_delete_waits_for_confirmation_and_runs_once_approved(
    tasks: Tasks, chat: Chat, client: TestClient
) -> None:
    chat.say("add a task to water the plants")
    asked = chat.say("delete water the plants")

    assert asked["reply"] == "I'll delete task #1 “Water the plants” once you confirm."
    [pending] = asked["pending_confirmations"]
    assert pending["name"] == "delete_task"
    assert pending["arguments"] == {"task_id": 1}
    assert [t["title"] for t in tasks(client)] == ["Water the plants"]  # not deleted yet

    approved = chat.answer("approve")

    assert approved["reply"] == "Deleted task #1 “Water the plants”."
    assert approved["pending_confirmations"] == []
    assert approved["tool_results"] == [
        {
            "call_id": pending["call_id"],
            "name": "delete_task",
            "success": True,
            "message": "Deleted task #1.",
            "declined": False,
        }
    ]
    assert tasks(client) == []


def test_denied_delete_keeps_the_task_and_tells_the_model_why(
    tasks: Tasks, chat: Chat, client: TestClient
) -> None:
    chat.say("add a task to water the plants")
    chat.say("delete task 1")

    denied = chat.answer("deny", reason="I still need it")

    assert denied["reply"] == "OK, I kept task #1."
    [result] = denied["tool_results"]
    assert result["success"] is False
    assert result["message"] == (
        "The user declined to run 'delete_task'; it was not run. Reason: I still need it"
    )
    assert [t["title"] for t in tasks(client)] == ["Water the plants"]


@pytest.mark.parametrize(
    ("answer", "reply", "remaining"),
    [
        ("approve", "Deleted task #1 “Water the plants”.", []),
        ("deny", "OK, I kept task #1 “Water the plants”.", ["Water the plants"]),
    ],
)
def test_a_pending_confirmation_survives_a_server_restart(
    new_chat: Callable[[TestClient], Chat],
    tasks: Tasks,
    make_app: AppFactory,
    answer: str,
    reply: str,
    remaining: list[str],
) -> None:
    with TestClient(make_app()) as first:
        before = new_chat(first)
        before.say("add a task to water the plants")
        asked = before.say("delete water the plants")
        assert asked["pending_confirmations"]
    # the first server is gone; a new one opens the same SQLite file
    with TestClient(make_app()) as second:
        after = new_chat(second)
        after.conversation_id = before.conversation_id
        after.last = before.last

        answered = after.answer(answer)

        assert answered["reply"] == reply
        assert [t["title"] for t in tasks(second)] == remaining
        history = second.get(f"/api/v1/conversations/{after.conversation_id}").json()
        assert history["pending_confirmations"] == []
        assert [m["role"] for m in history["messages"]][-2:] == ["tool", "assistant"]
        # the conversation goes on after the restart
        assert after.say("list my tasks")["tool_results"][0]["name"] == "query_tasks"


def test_the_other_calls_of_a_suspended_turn_run_once(
    new_chat: Callable[[TestClient], Chat], tasks: Tasks, make_app: AppFactory
) -> None:
    """A turn with a create and a delete: the create runs at once, and is not run again when
    the delete is approved after a restart; every call of the turn gets one result."""
    turn = tool_calls(
        tool_call("create_task", {"title": "Keep me"}, call_id="c1"),
        tool_call("delete_task", {"task_id": 1}, call_id="c2"),
    )
    setup = tool_calls(tool_call("create_task", {"title": "Go"}))
    first_model = ScriptedAdapter([setup, text("ok"), turn])
    with TestClient(make_app(adapter=first_model)) as first:
        chat = new_chat(first)
        chat.say("add a task to go")
        asked = chat.say("both at once")
        assert [r["name"] for r in asked["tool_results"]] == ["create_task"]
        assert [p["call_id"] for p in asked["pending_confirmations"]] == ["c2"]
    seen: list[Any] = []

    def answer(request: Any) -> Any:
        seen.append(request.messages)
        return text("done")

    second_model = ScriptedAdapter(responder=answer)
    with TestClient(make_app(adapter=second_model)) as second:
        resumed = new_chat(second)
        resumed.conversation_id, resumed.last = chat.conversation_id, chat.last
        assert resumed.answer("approve")["reply"] == "done"
        assert [t["title"] for t in tasks(second)] == ["Keep me"]
    [messages] = seen
    results = [(m.call_id, m.content.split("\n")[0]) for m in messages[-2:]]
    assert results == [("c1", "Created task #2."), ("c2", "Deleted task #1.")]


def test_invalid_arguments_come_back_as_a_readable_reply(
    tasks: Tasks, chat: Chat, client: TestClient
) -> None:
    reply = chat.say("add a task to water the plants with urgent priority")

    assert reply["reply"] == (
        "I couldn't create that task: priority: Input should be 'low', 'medium', 'high' or "
        "'critical', got 'urgent' (str)."
    )
    [result] = reply["tool_results"]
    assert result["success"] is False
    assert result["message"].startswith("Invalid arguments for 'create_task'")
    assert tasks(client) == []


def test_a_tool_error_comes_back_with_its_guidance(chat: Chat) -> None:
    reply = chat.say("mark task 42 done")

    assert reply["reply"] == (
        "I couldn't update task #42: There is no task #42. Say “list my tasks” to see the ids."
    )


def test_a_tool_timeout_comes_back_as_a_readable_reply(
    new_chat: Callable[[TestClient], Chat], make_app: AppFactory, github: LoopbackServer
) -> None:
    github.script(
        "/repos/octo/repo/pulls/7", DelayedReply(20, JsonReply({"title": "late"})), method="GET"
    )
    with TestClient(make_app(tool_timeout=0.75)) as client:  # room for the other calls under load
        chat = new_chat(client)
        chat.say("add a task to review the parser")
        chat.say("attach https://github.com/octo/repo/pull/7 to review the parser")

        reply = chat.say("refresh attachment 1")

    assert reply["reply"] == (
        "I couldn't refresh attachment #1: Tool 'refresh_attachment' timed out after 0.75s."
    )


def test_refresh_fetches_the_pull_request_into_the_attachment(
    tasks: Tasks, chat: Chat, client: TestClient, github: LoopbackServer
) -> None:
    github.script(
        "/repos/octo/repo/pulls/12",
        JsonReply(
            {
                "title": "Faster parser",
                "state": "open",
                "user": {"login": "mona"},
                "body": "Parses twice as fast.",
                "updated_at": "2026-03-01T10:00:00Z",
            }
        ),
        method="GET",
    )
    chat.say("add a task to review the parser")
    attached = chat.say("attach https://github.com/octo/repo/pull/12 to review the parser")
    assert "as attachment #1" in attached["reply"]

    refreshed = chat.say("refresh review the parser")

    assert refreshed["reply"] == (
        "Refreshed the GitHub attachments of task #1 “Review the parser”:\n"
        "- attachment #1: Pull request octo/repo#12: Faster parser"
    )
    [attachment] = tasks(client)[0]["attachments"]
    assert attachment["title"] == "Faster parser"
    assert attachment["content"].endswith("Parses twice as fast.")
    assert attachment["refreshed_at"] is not None
    [request] = github.requests
    assert request.headers["accept"] == "application/vnd.github+json"


# -- the other endpoints --------------------------------------------------------------------


def test_tools_lists_every_tool_with_its_json_schema(client: TestClient) -> None:
    body = client.get("/api/v1/tools").json()

    names = [tool["name"] for tool in body["tools"]]
    assert names == [
        "query_tasks",
        "create_task",
        "update_task",
        "delete_task",
        "list_attachments",
        "create_attachment",
        "delete_attachment",
        "refresh_attachment",
    ]
    create = body["tools"][1]
    assert create["parameters"]["type"] == "object"
    assert create["parameters"]["required"] == ["title"]
    assert create["parameters"]["properties"]["priority"]["enum"] == [
        "low",
        "medium",
        "high",
        "critical",
    ]


def test_tasks_can_be_filtered_by_status(chat: Chat, client: TestClient) -> None:
    chat.say("add a task to a")
    chat.say("add a task to b")
    chat.say("mark a done")

    response = client.get("/api/v1/tasks", params={"status": "completed"})

    assert [t["title"] for t in response.json()["tasks"]] == ["A"]
    assert response.json()["total"] == 1


def test_a_conversation_can_be_read_back_with_its_pending_confirmation(
    chat: Chat, client: TestClient
) -> None:
    chat.say("add a task to water the plants")
    chat.say("delete task 1")

    body = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()

    assert [(m["role"], m["text"]) for m in body["messages"]] == [
        ("user", "add a task to water the plants"),
        ("tool", "Created task #1."),
        ("assistant", "Created task #1 “Water the plants” (priority medium)."),
        ("user", "delete task 1"),
        ("assistant", "I'll delete task #1 once you confirm."),
    ]
    assert [p["name"] for p in body["pending_confirmations"]] == ["delete_task"]


# -- bad requests ---------------------------------------------------------------------------------


def _error(response: Any) -> tuple[int, str]:
    assert response.headers["content-type"] == "application/json"
    assert "Traceback" not in response.text
    return response.status_code, response.json()["error"]["code"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"message": 3}, 422, "invalid_request"),
        ({"message": ""}, 422, "invalid_request"),
        ({"message": "   "}, 422, "invalid_request"),
        ({"message": "x" * 4001}, 422, "invalid_request"),
        ({"message": "hi", "extra": 1}, 422, "invalid_request"),
        ({"message": "hi", "confirmations": {"c": "maybe"}}, 422, "invalid_request"),
        ({"message": "hi", "conversation_id": "nope"}, 422, "invalid_request"),
        ({"message": "hi", "conversation_id": "0" * 32}, 404, "conversation_not_found"),
        (["a", "list"], 422, "invalid_request"),
    ],
)
def test_a_bad_chat_request_gets_a_4xx_with_a_json_error(
    client: TestClient, body: Any, status: int, code: str
) -> None:
    assert _error(client.post("/api/v1/chat", json=body)) == (status, code)


def test_other_bad_requests_get_a_4xx_with_a_json_error(client: TestClient) -> None:
    malformed = client.post(
        "/api/v1/chat", content=b"{oops", headers={"content-type": "application/json"}
    )
    assert _error(malformed) == (400, "invalid_json")
    unknown = client.get("/api/v1/conversations/" + "0" * 32)
    assert _error(unknown) == (404, "conversation_not_found")
    assert _error(client.get("/api/v1/conversations/nope")) == (422, "invalid_request")
    assert _error(client.get("/api/v1/tasks", params={"status": "lost"})) == (
        422,
        "invalid_request",
    )
    assert _error(client.get("/api/v1/nothing-here")) == (404, "not_found")
    assert _error(client.delete("/api/v1/chat")) == (405, "method_not_allowed")


def test_an_invalid_request_names_the_field(client: TestClient) -> None:
    body = client.post("/api/v1/chat", json={"message": 3}).json()

    assert body["error"]["message"] == "body.message: Input should be a valid string"


def test_confirmations_must_match_what_is_pending(chat: Chat, client: TestClient) -> None:
    chat.say("add a task to water the plants")

    def post(message: str = "", **confirmations: str) -> Any:
        body = {"conversation_id": chat.conversation_id, "message": message}
        return client.post("/api/v1/chat", json={**body, "confirmations": confirmations})

    assert _error(post("x", c="approve")) == (409, "nothing_to_confirm")
    chat.say("delete task 1")
    call_id = chat.last["pending_confirmations"][0]["call_id"]

    assert _error(post("hello")) == (409, "confirmation_required")
    assert _error(post(other="approve")) == (409, "confirmation_mismatch")
    assert _error(post("a reason, but nothing denied", **{call_id: "approve"})) == (
        422,
        "invalid_request",
    )
    assert post("hello").json()["error"]["pending_confirmations"][0]["name"] == "delete_task"
    assert chat.answer("approve")["reply"] == "Deleted task #1 “Water the plants”."


def test_a_model_failure_is_a_502_with_a_json_error(make_app: AppFactory) -> None:
    failing = ScriptedAdapter([PromptEvaluationError("upstream exploded", status=500)])
    with TestClient(make_app(adapter=failing)) as client:
        response = client.post("/api/v1/chat", json={"message": "hi"})

    assert _error(response) == (502, "model_error")


def test_an_unexpected_failure_is_a_500_without_a_traceback(make_app: AppFactory) -> None:
    broken = ScriptedAdapter([RuntimeError("secret internals")])
    with TestClient(make_app(adapter=broken), raise_server_exceptions=False) as client:
        response = client.post(
            "/api/v1/chat", json={"message": "hi"}, headers={"X-Request-ID": "r-1"}
        )

    assert _error(response) == (500, "internal_error")
    assert "secret internals" not in response.text
    assert "r-1" in response.json()["error"]["message"]
    assert response.headers["x-request-id"] == "r-1"


# -- request ids ----------------------------------------------------------------------------------


def test_the_request_id_is_echoed_or_generated(client: TestClient) -> None:
    given = client.get("/api/v1/tools", headers={"X-Request-ID": "abc-123"})
    generated = client.get("/api/v1/tools")
    unsafe = client.get("/api/v1/tools", headers={"X-Request-ID": "bad id with spaces"})

    assert given.headers["x-request-id"] == "abc-123"
    assert len(generated.headers["x-request-id"]) == 32
    assert unsafe.headers["x-request-id"] != "bad id with spaces"
    assert _error(client.get("/nope", headers={"X-Request-ID": "e-1"})) == (404, "not_found")


def test_the_page_and_its_assets_are_served(client: TestClient) -> None:
    page = client.get("/")
    script = client.get("/static/chat.js")

    assert page.status_code == 200
    assert '<script src="/static/chat.js"' in page.text
    assert script.status_code == 200
    assert "/api/v1/chat" in script.text
