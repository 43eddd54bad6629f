"""``POST /api/v1/chat/stream``: the events and their shapes, the final reply (the plain
endpoint's body), confirmations through the stream and across a restart, failures before and
after the stream starts, and clients that leave mid-stream."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from loopback import DelayedReply, JsonReply, LoopbackServer

from affordance import HostedToolActivity, HostedToolResult, PromptEvaluationError, RefusalDelta
from affordance.adapters import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from taskchat.chat_stream import event_data, server_sent_event
from taskchat.offline import respond

Chat = Any  # conftest's Chat helper
Event = tuple[str, dict[str, Any]]
Events = Callable[[str], list[Event]]
AppFactory = Callable[..., Any]
NewChat = Callable[..., Chat]
Tasks = Callable[[TestClient], list[dict[str, Any]]]

STREAM = "/api/v1/chat/stream"
_JSON = {"content-type": "application/json"}


def _names(events: list[Event]) -> list[str]:
    return [name for name, _ in events]


def _of(events: list[Event], name: str) -> list[dict[str, Any]]:
    return [data for event, data in events if event == name]


def _streamed_text(events: list[Event]) -> str:
    """The text of the last turn that spoke, joined from its deltas."""
    deltas = _of(events, "text_delta")
    last = deltas[-1]["turn"] if deltas else None
    return "".join(d["text"] for d in deltas if d["turn"] == last)


# -- events and their shapes -------------------------------------------------------------------


def test_each_event_is_sent_as_it_happens_with_its_shape_then_the_reply(
    make_app: AppFactory, new_chat: NewChat
) -> None:
    arguments = '{"title": "Buy milk"}'
    script = ScriptedAdapter(
        [
            tool_calls(tool_call("create_task", arguments, call_id="c1")),
            text("Done: #1."),
        ],
        stream_chunk=4,
    )
    with TestClient(make_app(adapter=script)) as client:
        chat = new_chat(client, stream=True)
        chat.say("add buy milk")

    events = chat.events
    conversation_id = chat.conversation_id
    run_id = events[1][1]["run_id"]
    usage = {"input_tokens": 10, "output_tokens": 5}
    assert events == [
        ("chat_started", {"conversation_id": conversation_id, "resumed": False}),
        ("run_started", {"run_id": run_id}),
        ("tool_call_started", {"call_id": "c1", "name": "create_task", "turn": 1}),
        *[
            ("tool_call_arguments_delta", {"call_id": "c1", "text": arguments[i : i + 4]})
            for i in range(0, len(arguments), 4)
        ],
        ("turn_finished", {"turn": 1, "finish_reason": "tool_calls", "usage": usage}),
        (
            "tool_call_finished",
            {
                "call_id": "c1",
                "name": "create_task",
                "success": True,
                "message": "Created task #1.",
                "declined": False,
                "turn": 1,
            },
        ),
        ("text_delta", {"text": "Done", "turn": 2}),
        ("text_delta", {"text": ": #1", "turn": 2}),
        ("text_delta", {"text": ".", "turn": 2}),
        ("turn_finished", {"turn": 2, "finish_reason": "stop", "usage": usage}),
        (
            "reply",
            {
                "conversation_id": conversation_id,
                "reply": "Done: #1.",
                "tool_results": [
                    {
                        "call_id": "c1",
                        "name": "create_task",
                        "success": True,
                        "message": "Created task #1.",
                        "declined": False,
                    }
                ],
                "pending_confirmations": [],
            },
        ),
    ]


def test_the_openapi_document_shows_the_stream(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"][STREAM]["post"]

    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ChatRequest"
    }


def test_the_kinds_taskchat_does_not_produce_yet_have_shapes_too() -> None:
    assert event_data(RefusalDelta("I can't", 2)) == {"text": "I can't", "turn": 2}
    assert event_data(HostedToolActivity("web_search_call", "searching", "ws_1")) == {
        "item_type": "web_search_call",
        "status": "searching",
        "item_id": "ws_1",
    }
    assert event_data(HostedToolResult("search", object())) == {"name": "search"}


def test_an_event_is_one_line_of_json_whatever_its_text() -> None:
    encoded = server_sent_event("text_delta", {"text": "two\nlines “quoted”", "turn": 1})

    assert encoded == (
        'event: text_delta\ndata: {"text":"two\\nlines “quoted”","turn":1}\n\n'.encode()
    )


def _anonymous(body: dict[str, Any]) -> str:
    """The body with its random ids (conversation, call ids) replaced by placeholders."""
    text = json.dumps(body, ensure_ascii=False)
    text = text.replace(body["conversation_id"], "CONVERSATION")
    ids = list(dict.fromkeys(re.findall(r"call_[0-9a-f]+", text)))
    for n, call_id in enumerate(ids):
        text = text.replace(call_id, f"CALL{n}")
    return text


def test_the_final_event_is_the_body_the_plain_endpoint_answers(
    make_app: AppFactory, new_chat: NewChat, tmp_path: Path
) -> None:
    """The same conversation, once through each endpoint (each over its own database)."""
    steps: list[Callable[[Chat], dict[str, Any]]] = [
        lambda c: c.say("add a task to water the plants due tomorrow tagged home"),
        lambda c: c.say("add a task to call mom with urgent priority"),  # invalid arguments
        lambda c: c.say("mark water the plants done"),
        lambda c: c.say("list my tasks"),
        lambda c: c.say("delete water the plants"),
        lambda c: c.answer("approve"),
        lambda c: c.say("add a task to pay rent"),
        lambda c: c.say("delete pay rent"),
        lambda c: c.answer("deny", reason="not yet"),
    ]
    answers: dict[bool, list[str]] = {}
    streamed_texts: list[tuple[str, str]] = []
    for stream in (False, True):
        database_url = f"sqlite:///{tmp_path / f'stream-{stream}.db'}"
        with TestClient(make_app(database_url=database_url)) as client:
            chat = new_chat(client, stream=stream)
            answers[stream] = []
            for step in steps:
                answers[stream].append(_anonymous(step(chat)))
                if stream:
                    streamed_texts.append((_streamed_text(chat.events), chat.last["reply"]))

    assert answers[True] == answers[False]
    for streamed, reply in streamed_texts:
        assert streamed == reply


# -- confirmations through the stream ------------------------------------------------------------


def test_a_deletion_is_held_for_confirmation_and_approved_through_the_stream(
    stream_chat: Chat, client: TestClient, tasks: Tasks
) -> None:
    stream_chat.say("add a task to water the plants")
    asked = stream_chat.say("delete water the plants")

    [pending] = asked["pending_confirmations"]
    assert _of(stream_chat.events, "confirmation_required") == [pending]
    assert pending["name"] == "delete_task"
    assert pending["arguments"] == {"task_id": 1}
    assert _names(stream_chat.events)[-2:] == ["confirmation_required", "reply"]
    assert [t["title"] for t in tasks(client)] == ["Water the plants"]

    approved = stream_chat.answer("approve")

    events = stream_chat.events
    assert events[0] == (
        "chat_started",
        {"conversation_id": stream_chat.conversation_id, "resumed": True},
    )
    assert events[1] == (
        "tool_call_finished",
        {
            "call_id": pending["call_id"],
            "name": "delete_task",
            "success": True,
            "message": "Deleted task #1.",
            "declined": False,
            "turn": 2,
        },
    )
    assert _names(events)[2] == "run_started"  # the model reads the result and answers
    assert approved["reply"] == "Deleted task #1 “Water the plants”."
    assert _streamed_text(events) == approved["reply"]
    assert approved["pending_confirmations"] == []
    assert tasks(client) == []


def test_a_deletion_denied_through_the_stream_keeps_the_task(
    stream_chat: Chat, client: TestClient, tasks: Tasks
) -> None:
    stream_chat.say("add a task to water the plants")
    stream_chat.say("delete task 1")

    denied = stream_chat.answer("deny", reason="I still need it")

    [finished] = _of(stream_chat.events, "tool_call_finished")
    assert finished["success"] is False
    assert finished["message"] == (
        "The user declined to run 'delete_task'; it was not run. Reason: I still need it"
    )
    assert denied["reply"] == "OK, I kept task #1."
    assert [t["title"] for t in tasks(client)] == ["Water the plants"]


@pytest.mark.parametrize(
    ("answer", "reply", "remaining"),
    [
        ("approve", "Deleted task #1 “Water the plants”.", []),
        ("deny", "OK, I kept task #1 “Water the plants”.", ["Water the plants"]),
    ],
)
def test_a_confirmation_asked_in_a_stream_is_answered_in_a_stream_after_a_restart(
    make_app: AppFactory,
    new_chat: NewChat,
    tasks: Tasks,
    answer: str,
    reply: str,
    remaining: list[str],
) -> None:
    with TestClient(make_app()) as first:
        before = new_chat(first, stream=True)
        before.say("add a task to water the plants")
        assert before.say("delete water the plants")["pending_confirmations"]
    # the first server is gone; a new one opens the same SQLite file
    with TestClient(make_app()) as second:
        after = new_chat(second, stream=True)
        after.conversation_id, after.last = before.conversation_id, before.last

        answered = after.answer(answer)

        assert answered["reply"] == reply
        assert _of(after.events, "chat_started")[0]["resumed"] is True
        assert [t["title"] for t in tasks(second)] == remaining
        history = second.get(f"/api/v1/conversations/{after.conversation_id}").json()
        assert history["pending_confirmations"] == []
        assert after.say("list my tasks")["tool_results"][0]["name"] == "query_tasks"


# -- failures the model reads ---------------------------------------------------------------------


def test_invalid_arguments_come_back_as_a_readable_reply_in_the_stream(
    stream_chat: Chat, client: TestClient, tasks: Tasks
) -> None:
    reply = stream_chat.say("add a task to water the plants with urgent priority")

    [finished] = _of(stream_chat.events, "tool_call_finished")
    assert finished["name"] == "create_task"
    assert finished["success"] is False
    assert finished["message"].startswith("Invalid arguments for 'create_task'")
    assert reply["reply"] == (
        "I couldn't create that task: priority: Input should be 'low', 'medium', 'high' or "
        "'critical', got 'urgent' (str)."
    )
    assert tasks(client) == []


def test_a_tool_timeout_comes_back_as_a_readable_reply_in_the_stream(
    make_app: AppFactory, new_chat: NewChat, github: LoopbackServer
) -> None:
    github.script(
        "/repos/octo/repo/pulls/7", DelayedReply(20, JsonReply({"title": "late"})), method="GET"
    )
    with TestClient(make_app(tool_timeout=0.75)) as client:  # room for the other calls under load
        chat = new_chat(client, stream=True)
        chat.say("add a task to review the parser")
        chat.say("attach https://github.com/octo/repo/pull/7 to review the parser")

        reply = chat.say("refresh attachment 1")

    finished = _of(chat.events, "tool_call_finished")
    refresh = [f for f in finished if f["name"] == "refresh_attachment"]
    assert [(f["success"], f["message"]) for f in refresh] == [
        (False, "Tool 'refresh_attachment' timed out after 0.75s.")
    ]
    assert reply["reply"] == (
        "I couldn't refresh attachment #1: Tool 'refresh_attachment' timed out after 0.75s."
    )


# -- failures before and after the stream starts --------------------------------------------------


def _json_error(response: httpx.Response) -> tuple[int, str]:
    assert response.headers["content-type"] == "application/json"
    assert "x-request-id" in response.headers
    assert "Traceback" not in response.text
    return response.status_code, response.json()["error"]["code"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"message": 3}, 422, "invalid_request"),
        ({"message": "  "}, 422, "invalid_request"),
        ({"message": "x" * 4001}, 422, "invalid_request"),
        ({"message": "hi", "extra": 1}, 422, "invalid_request"),
        ({"message": "hi", "conversation_id": "nope"}, 422, "invalid_request"),
        ({"message": "hi", "conversation_id": "0" * 32}, 404, "conversation_not_found"),
        ({"confirmations": {"c": "approve"}}, 409, "nothing_to_confirm"),
    ],
)
def test_a_bad_request_is_a_json_4xx_before_any_stream(
    client: TestClient, body: Any, status: int, code: str
) -> None:
    assert _json_error(client.post(STREAM, json=body)) == (status, code)


def test_confirmations_that_do_not_match_are_a_json_409_before_any_stream(
    stream_chat: Chat, client: TestClient
) -> None:
    stream_chat.say("add a task to water the plants")
    stream_chat.say("delete task 1")
    body = {"conversation_id": stream_chat.conversation_id}

    required = client.post(STREAM, json={**body, "message": "hello"})
    mismatch = client.post(STREAM, json={**body, "confirmations": {"other": "approve"}})

    assert _json_error(required) == (409, "confirmation_required")
    assert required.json()["error"]["pending_confirmations"][0]["name"] == "delete_task"
    assert _json_error(mismatch) == (409, "confirmation_mismatch")
    assert _json_error(client.post(STREAM, content=b"{oops", headers=_JSON)) == (
        400,
        "invalid_json",
    )


def test_a_model_failure_after_the_start_is_the_final_error_event(
    make_app: AppFactory, sse_events: Events, tasks: Tasks
) -> None:
    script = ScriptedAdapter(
        [
            tool_calls(tool_call("create_task", {"title": "Orphan"}, call_id="c1")),
            PromptEvaluationError("upstream exploded", status=500),
        ]
    )
    with TestClient(make_app(adapter=script)) as client:
        response = client.post(STREAM, json={"message": "hi"}, headers={"X-Request-ID": "r-5"})

        assert response.status_code == 200
        assert response.headers["x-request-id"] == "r-5"
        events = sse_events(response.text)
        assert _names(events)[0] == "chat_started"
        assert "tool_call_finished" in _names(events)
        name, error = events[-1]
        assert name == "error"
        assert (error["status"], error["error"]["code"]) == (502, "model_error")
        # a request that did not finish stores nothing of its run
        conversation_id = events[0][1]["conversation_id"]
        assert client.get(f"/api/v1/conversations/{conversation_id}").status_code == 404


def test_an_unexpected_failure_is_a_final_error_event_naming_the_request_id_only(
    make_app: AppFactory, sse_events: Events, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    broken = ScriptedAdapter([RuntimeError("secret internals")])
    with TestClient(make_app(adapter=broken)) as client:
        response = client.post(STREAM, json={"message": "hi"}, headers={"X-Request-ID": "r-1"})

    assert response.status_code == 200
    assert sse_events(response.text)[-1] == (
        "error",
        {
            "status": 500,
            "error": {
                "code": "internal_error",
                "message": "unexpected server error (request id r-1)",
            },
        },
    )
    assert "secret internals" not in response.text
    assert all("secret internals" not in r.getMessage() for r in caplog.records)
    unhandled = [r for r in caplog.records if r.name == "taskchat.http"]
    assert [r.getMessage() for r in unhandled] == [
        "unhandled RuntimeError on POST /api/v1/chat/stream"
    ]
    assert [r.taskchat_outcome for r in caplog.records if r.name == "taskchat.chat"] == ["error"]  # type: ignore[attr-defined]


def test_a_passed_deadline_is_the_final_error_event(
    make_app: AppFactory, sse_events: Events
) -> None:
    def slow(request: ModelRequest) -> ProviderTurn:
        time.sleep(0.05)  # longer than the whole deadline
        return tool_calls(tool_call("query_tasks", {}))

    with TestClient(make_app(adapter=ScriptedAdapter([slow]), chat_deadline=0.01)) as client:
        response = client.post(STREAM, json={"message": "hi"})

    name, error = sse_events(response.text)[-1]
    assert (name, error["status"], error["error"]["code"]) == ("error", 504, "model_timeout")


# -- clients that leave, and a quiet model ---------------------------------------------------------


def _events_until(lines: Iterator[str], wanted: str) -> list[str]:
    """Read a live stream line by line up to the first ``wanted`` event's data."""
    names: list[str] = []
    for line in lines:
        if line.startswith("event: "):
            names.append(line.removeprefix("event: "))
        elif line.startswith("data: ") and names and names[-1] == wanted:
            return names
    raise AssertionError(f"the stream ended before {wanted!r}: {names}")


def test_a_client_that_leaves_mid_reply_stops_the_run_and_the_conversation_stays_as_it_was(
    live_server: Callable[..., Any], held_model: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="taskchat.chat")
    model = held_model(responder=respond)
    server = live_server(adapter=model)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        first = http.post("/api/v1/chat", json={"message": "add a task to water the plants"})
        conversation_id = first.json()["conversation_id"]
        path = f"/api/v1/conversations/{conversation_id}"
        before = http.get(path).json()
        asked = len(model.requests)
        gate = model.hold()

        body = {"conversation_id": conversation_id, "message": "list my tasks"}
        with http.stream("POST", STREAM, json=body) as response:
            names = _events_until(response.iter_lines(), "text_delta")
        # leaving the block closed the connection in the middle of the reply

        assert "tool_call_finished" in names  # the run was under way
        assert gate.ended.wait(30)  # the model's stream was closed ...
        assert not gate.released.is_set()  # ... while held: the run was stopped, not finished
        assert len(model.requests) == asked + 2  # and asked the model nothing more
        # the next request waits for the stopped one to be over, then finds the conversation
        # as it was before it and goes on
        again = http.post("/api/v1/chat", json=body)
        assert again.status_code == 200
        history = http.get(path).json()

    assert history["messages"][: len(before["messages"])] == before["messages"]
    assert [m["role"] for m in history["messages"][len(before["messages"]) :]] == [
        "user",
        "tool",
        "assistant",
    ]
    outcomes = [r.taskchat_outcome for r in caplog.records if r.name == "taskchat.chat"]  # type: ignore[attr-defined]
    assert outcomes == ["replied", "interrupted", "replied"]


def test_a_client_that_leaves_after_approving_keeps_the_deletion_done_once(
    live_server: Callable[..., Any], held_model: Any
) -> None:
    model = held_model(responder=respond)
    server = live_server(adapter=model)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        http.post("/api/v1/chat", json={"message": "add a task to water the plants"})
        asked = http.post("/api/v1/chat", json={"message": "delete water the plants"}).json()
        conversation_id = asked["conversation_id"]
        [pending] = asked["pending_confirmations"]
        gate = model.hold()

        approve = {pending["call_id"]: "approve"}
        body = {"conversation_id": conversation_id, "confirmations": approve}
        with http.stream("POST", STREAM, json=body) as response:
            names = _events_until(response.iter_lines(), "text_delta")

        assert names[:2] == ["chat_started", "tool_call_finished"]
        assert gate.ended.wait(30)
        assert not gate.released.is_set()
        # the approved call ran; its result is kept and nothing waits any more
        later = http.post(
            "/api/v1/chat", json={"conversation_id": conversation_id, "message": "list my tasks"}
        )
        assert later.status_code == 200, later.text
        assert later.json()["reply"] == "You have no tasks."
        history = http.get(f"/api/v1/conversations/{conversation_id}").json()
        tasks = http.get("/api/v1/tasks").json()

    assert tasks["tasks"] == []
    assert history["pending_confirmations"] == []
    deleted = {
        "role": "tool",
        "text": "Deleted task #1.",
        "name": "delete_task",
        "success": True,
        "declined": False,
    }
    assert history["messages"].count(deleted) == 1
    after_deletion = history["messages"][history["messages"].index(deleted) + 1 :]
    assert [m["role"] for m in after_deletion] == ["user", "tool", "assistant"]


def test_a_quiet_stream_sends_keep_alive_comments(
    live_server: Callable[..., Any], held_model: Any
) -> None:
    model = held_model(responder=respond)
    server = live_server(adapter=model, stream_keepalive=0.01)
    gate = model.hold()
    with (
        httpx.Client(base_url=server.url, timeout=30) as http,
        http.stream("POST", STREAM, json={"message": "list my tasks"}) as response,
    ):
        lines = response.iter_lines()
        _events_until(lines, "text_delta")  # now held
        assert next(line for line in lines if line.startswith(":")) == ": keep-alive"
        gate.release()
        rest = list(lines)

    assert "event: reply" in rest
