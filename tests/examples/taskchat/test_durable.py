"""taskchat with ``--temporal``: the agent runs durably on a real Temporal dev server (one for
this module), behind a real uvicorn over a SQLite file, with the offline model — on a worker
inside the server (``--temporal-worker``) or in worker processes started with the documented
``python -m affordance_temporal worker`` command. A trigger in the database counts every task
deletion, whichever process makes it."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("affordance_temporal", reason="affordance-temporal is not installed")

from temporalio.client import Client, WorkflowFailureError

from affordance.adapters import ToolResultMessage, UserMessage
from affordance_temporal.chat import chat_workflow_id
from affordance_temporal.testing import DevServer
from taskchat.cli import main
from taskchat.conversations import ConversationStore, PendingCall, PendingTurn
from taskchat.database import open_database
from taskchat.settings import Settings

pytestmark = pytest.mark.slow

Chat = Any  # conftest's Chat helper
NewChat = Callable[..., Chat]
StartServer = Callable[..., Any]  # conftest's live_server: a started LiveServer


@pytest.fixture
def task_queue() -> str:
    return f"taskchat-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def durable(temporal_server: DevServer, task_queue: str) -> dict[str, Any]:
    """The settings of a server running its agent on the dev server (no worker inside)."""
    return {"temporal": temporal_server.address, "task_queue": task_queue}


@pytest.fixture
def deletions(database_url: str) -> Callable[[], list[int]]:
    """``deletions()``: the id of every task deleted so far, by any process, in order (a
    trigger records them; call it once the app has created the tables)."""
    path = database_url.removeprefix("sqlite:///")

    def deleted() -> list[int]:
        with closing(sqlite3.connect(path, timeout=10)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS test_deletions (task_id INTEGER)")
            db.execute(
                "CREATE TRIGGER IF NOT EXISTS test_count_deletions AFTER DELETE ON tasks "
                "BEGIN INSERT INTO test_deletions VALUES (old.id); END"
            )
            rows = db.execute("SELECT task_id FROM test_deletions ORDER BY rowid").fetchall()
        return [int(task_id) for (task_id,) in rows]

    return deleted


class Workers:
    """Worker processes, started as the README says; each is ready when it says so."""

    def __init__(self, address: str, task_queue: str, database_url: str) -> None:
        self.command = [
            sys.executable,
            "-m",
            "affordance_temporal",
            "worker",
            "--address",
            address,
            "--task-queue",
            task_queue,
            "--registry",
            "taskchat.durable:registry_from_env",
            "--adapter",
            "taskchat.durable:adapter_from_env",
            "--sticky-timeout",
            "0.5",  # a run cached by a stopped worker moves on quickly
        ]
        self.env = {**os.environ, "TASKCHAT_DATABASE_URL": database_url}
        self.env.pop("TASKCHAT_PROVIDER", None)  # the offline model
        self.running: list[subprocess.Popen[str]] = []

    def start(self) -> subprocess.Popen[str]:
        worker = subprocess.Popen(self.command, env=self.env, stdout=subprocess.PIPE, text=True)
        self.running.append(worker)
        assert worker.stdout is not None
        ready = worker.stdout.readline()
        assert ready.startswith("worker ready"), f"the worker did not start ({worker.poll()})"
        return worker

    def kill(self, worker: subprocess.Popen[str]) -> None:
        worker.kill()
        worker.wait()

    def stop_all(self) -> None:
        for worker in self.running:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=10)
            if worker.stdout is not None:
                worker.stdout.close()


@pytest.fixture
def workers(temporal_server: DevServer, task_queue: str, database_url: str) -> Iterator[Workers]:
    started = Workers(temporal_server.address, task_queue, database_url)
    yield started
    started.stop_all()


def http(server: Any) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def transcript(client: httpx.Client, conversation_id: str) -> list[tuple[str, str]]:
    """The conversation as ``GET /api/v1/conversations/{id}`` shows it: (role, text)."""
    found = client.get(f"/api/v1/conversations/{conversation_id}").json()
    return [(m["role"], m["text"]) for m in found["messages"]]


# -- a turn that only reads ----------------------------------------------------------------------


def test_a_chat_turn_on_temporal_answers_as_the_run_in_the_process_does(
    live_server: StartServer, new_chat: NewChat, durable: dict[str, Any], tmp_path: Path
) -> None:
    """A write, then a read, through a worker inside the server: the same replies and tool
    results as the same conversation run in the process (another database)."""
    script = ["add a task to buy milk due tomorrow", "list my tasks"]
    with http(live_server(**durable, temporal_worker=True)) as client:
        chat = new_chat(client)
        on_temporal = [chat.say(line) for line in script]
        stored = transcript(client, chat.conversation_id)
    with http(live_server(database_url=f"sqlite:///{tmp_path / 'local.db'}")) as client:
        local = new_chat(client)
        in_process = [local.say(line) for line in script]

    def without_ids(reply: dict[str, Any]) -> dict[str, Any]:
        results = [{k: v for k, v in r.items() if k != "call_id"} for r in reply["tool_results"]]
        return {**reply, "conversation_id": None, "tool_results": results}

    assert [without_ids(r) for r in on_temporal] == [without_ids(r) for r in in_process]
    assert on_temporal[1]["reply"] == (
        "You have 1 task:\n- #1 Buy milk (pending, medium priority, due 2026-03-03)"
    )
    assert [r["name"] for r in on_temporal[1]["tool_results"]] == ["query_tasks"]
    assert stored == [
        ("user", script[0]),
        ("tool", "Created task #1."),
        ("assistant", on_temporal[0]["reply"]),
        ("user", script[1]),
        ("tool", "Found 1 task."),
        ("assistant", on_temporal[1]["reply"]),
    ]


def test_a_deletion_on_temporal_reports_each_call_when_the_run_in_the_process_does(
    live_server: StartServer, new_chat: NewChat, durable: dict[str, Any], tmp_path: Path
) -> None:
    """While the durable run waits for the answer, the reply reports the call it already ran
    and the waiting turn is stored; the answer's reply reports only the calls run after it:
    the same replies, stream events and stored transcript as in the process, request by
    request."""

    def converse(chat: Chat) -> tuple[list[dict[str, Any]], list[list[str]], list[Any]]:
        replies, events, stored = [], [], []
        for say in (
            lambda: chat.say("add a task to water the plants"),
            lambda: chat.say("delete water the plants"),
            lambda: chat.answer("approve"),
        ):
            replies.append(say())
            events.append([name for name, _ in chat.events])
            stored.append(transcript(chat.client, chat.conversation_id))
        return replies, events, stored

    with http(live_server(**durable, temporal_worker=True)) as client:
        on_temporal, temporal_events, stored = converse(new_chat(client, stream=True))
    with http(live_server(database_url=f"sqlite:///{tmp_path / 'local.db'}")) as client:
        in_process, local_events, stored_locally = converse(new_chat(client, stream=True))

    def without_ids(reply: dict[str, Any]) -> dict[str, Any]:
        results = [{k: v for k, v in r.items() if k != "call_id"} for r in reply["tool_results"]]
        pending = [
            {k: v for k, v in p.items() if k != "call_id"} for p in reply["pending_confirmations"]
        ]
        return {
            **reply,
            "conversation_id": None,
            "tool_results": results,
            "pending_confirmations": pending,
        }

    assert [without_ids(r) for r in on_temporal] == [without_ids(r) for r in in_process]
    assert [r["name"] for r in on_temporal[1]["tool_results"]] == ["query_tasks"]
    assert [r["name"] for r in on_temporal[2]["tool_results"]] == ["delete_task"]
    # each call heard once, by the request that ran it (a durable run's once it settled)
    finished = [names.count("tool_call_finished") for names in temporal_events]
    assert finished == [names.count("tool_call_finished") for names in local_events] == [1, 1, 1]
    assert stored == stored_locally  # after each request: the waiting turn is stored at once
    assert stored[1][-2:] == [
        ("tool", "Found 1 task."),
        ("assistant", "I'll delete task #1 “Water the plants” once you confirm."),
    ]


def test_the_stream_sends_a_durable_runs_events_once_it_has_settled(
    live_server: StartServer, new_chat: NewChat, durable: dict[str, Any]
) -> None:
    with http(live_server(**durable, temporal_worker=True)) as client:
        chat = new_chat(client, stream=True)
        chat.say("add a task to buy milk")
        events = chat.events

    conversation_id = chat.conversation_id
    assert [name for name, _ in events] == [
        "chat_started",
        "run_started",
        "tool_call_finished",
        "reply",
    ]
    opening = [UserMessage("add a task to buy milk")]
    assert events[1][1] == {"run_id": chat_workflow_id(conversation_id, opening)}
    assert {k: v for k, v in events[2][1].items() if k != "call_id"} == {
        "name": "create_task",
        "success": True,
        "message": "Created task #1.",
        "declined": False,
        "turn": 1,
    }
    assert events[3][1]["reply"] == "Created task #1 “Buy milk” (priority medium)."


# -- destructive calls ---------------------------------------------------------------------------


def test_a_deletion_waits_in_temporal_and_is_approved_after_the_worker_and_server_restart(
    live_server: StartServer,
    new_chat: NewChat,
    durable: dict[str, Any],
    workers: Workers,
    deletions: Callable[[], list[int]],
) -> None:
    first_worker = workers.start()
    first_server = live_server(**durable)
    with http(first_server) as client:
        chat = new_chat(client)
        chat.say("add a task to water the plants")
        assert deletions() == []
        asked = chat.say("delete water the plants")
    workers.kill(first_worker)  # the run waits in Temporal, no worker holds it
    first_server.stop()

    [pending] = asked["pending_confirmations"]
    assert (pending["name"], pending["arguments"]) == ("delete_task", {"task_id": 1})
    assert asked["reply"] == "I'll delete task #1 “Water the plants” once you confirm."
    # the call run before the wait is reported now, as in the process; only once
    assert [(r["name"], r["message"]) for r in asked["tool_results"]] == [
        ("query_tasks", "Found 1 task.")
    ]

    workers.start()
    with http(live_server(**durable)) as client:
        after_restart = new_chat(client)
        after_restart.conversation_id = chat.conversation_id
        after_restart.last = asked
        approved = after_restart.answer("approve")
        remaining = client.get("/api/v1/tasks").json()["tasks"]
        stored = transcript(client, chat.conversation_id)

    assert approved["reply"] == "Deleted task #1 “Water the plants”."
    assert approved["pending_confirmations"] == []
    assert [(r["name"], r["success"], r["message"]) for r in approved["tool_results"]] == [
        ("delete_task", True, "Deleted task #1."),
    ]
    assert approved["tool_results"][0]["call_id"] == pending["call_id"]
    assert remaining == []
    assert deletions() == [1]  # exactly once
    assert stored[-5:] == [
        ("user", "delete water the plants"),
        ("tool", "Found 1 task."),
        ("assistant", "I'll delete task #1 “Water the plants” once you confirm."),
        ("tool", "Deleted task #1."),
        ("assistant", "Deleted task #1 “Water the plants”."),
    ]


def test_a_denied_deletion_leaves_the_task_and_the_model_reads_why(
    live_server: StartServer,
    new_chat: NewChat,
    durable: dict[str, Any],
    deletions: Callable[[], list[int]],
) -> None:
    with http(live_server(**durable, temporal_worker=True)) as client:
        chat = new_chat(client, stream=True)
        chat.say("add a task to water the plants")
        assert deletions() == []
        chat.say("delete task 1")
        asked = chat.events
        denied = chat.answer("deny", reason="I still need it")
        answered = chat.events
        remaining = client.get("/api/v1/tasks").json()["tasks"]

    assert [name for name, _ in asked] == [
        "chat_started",
        "run_started",
        "confirmation_required",
        "reply",
    ]
    assert asked[2][1]["arguments"] == {"task_id": 1}
    assert [name for name, _ in answered] == [
        "chat_started",
        "run_started",
        "tool_call_finished",
        "reply",
    ]
    assert answered[0][1]["resumed"] is True
    assert answered[1][1]["run_id"].startswith(f"chat-{chat.conversation_id}-5-")
    assert denied["reply"] == "OK, I kept task #1."
    [result] = denied["tool_results"]
    assert (result["name"], result["success"], result["message"]) == (
        "delete_task",
        False,
        "The user declined to run 'delete_task'; it was not run. Reason: I still need it",
    )
    assert result["declined"] is True  # declined in Temporal, told apart from a failure here
    assert [t["title"] for t in remaining] == ["Water the plants"]
    assert deletions() == []


def test_an_answer_whose_request_gave_up_is_collected_by_the_next_answer(
    live_server: StartServer,
    new_chat: NewChat,
    durable: dict[str, Any],
    workers: Workers,
    temporal_server: DevServer,
    deletions: Callable[[], list[int]],
    database_url: str,
) -> None:
    """No worker runs while the approval is sent: the request gives up at its deadline (504);
    the run goes on once a worker is back, and answering again stores how it ended."""
    first_worker = workers.start()
    with http(live_server(**durable)) as client:
        chat = new_chat(client)
        chat.say("add a task to water the plants")
        assert deletions() == []
        asked = chat.say("delete task 1")
    workers.kill(first_worker)
    workflow_id = _pending_run(database_url, chat.conversation_id)

    with http(live_server(**durable, chat_deadline=1.0)) as client:
        body = {
            "conversation_id": chat.conversation_id,
            "message": "",
            "confirmations": {asked["pending_confirmations"][0]["call_id"]: "approve"},
        }
        gave_up = client.post("/api/v1/chat", json=body)
        still_pending = client.get(f"/api/v1/conversations/{chat.conversation_id}").json()

    workers.start()
    asyncio.run(_run_ended(temporal_server.address, workflow_id))
    assert deletions() == [1]  # the run went on with the approval it had

    with http(live_server(**durable)) as client:
        again = new_chat(client)
        again.conversation_id, again.last = chat.conversation_id, asked
        collected = again.answer("deny")  # too late: the first answer stands
        reply = again.say("list my tasks")

    assert gave_up.status_code == 504
    assert gave_up.json()["error"]["code"] == "model_timeout"
    assert len(still_pending["pending_confirmations"]) == 1
    assert collected["reply"] == "Deleted task #1 “Water the plants”."
    assert reply["reply"] == "You have no tasks."
    assert deletions() == [1]


def _pending_run(database_url: str, conversation_id: str) -> str:
    """The workflow id of the run the conversation waits on, as the app stored it."""
    database = open_database(database_url)
    try:
        conversation = ConversationStore(database).load(conversation_id)
    finally:
        database.close()
    assert conversation is not None
    assert conversation.pending is not None
    return conversation.pending.run_id


async def _run_ended(address: str, workflow_id: str) -> None:
    client = await Client.connect(address)
    await client.get_workflow_handle(workflow_id).result()


# -- a request that does not finish ----------------------------------------------------------------


@pytest.mark.parametrize("how", ["deadline", "client_left"])
def test_a_new_message_whose_request_stops_cancels_its_run_and_stores_nothing(
    live_server: StartServer,
    durable: dict[str, Any],
    temporal_server: DevServer,
    caplog: pytest.LogCaptureFixture,
    how: str,
) -> None:
    """No worker runs: the request gives up at its deadline (504), or its streaming client
    leaves; either way it cancels its run, which a worker started later ends without running
    anything — as in the process, no run of a new message outlives its request."""
    caplog.set_level(logging.INFO, logger="taskchat.chat")
    ask = {"message": "add a task to buy milk"}
    with http(live_server(**durable, chat_deadline=1.0 if how == "deadline" else 90.0)) as client:
        if how == "deadline":
            gave_up = client.post("/api/v1/chat", json=ask)
            assert gave_up.status_code == 504
            assert gave_up.json()["error"]["code"] == "model_timeout"
        else:
            with client.stream("POST", "/api/v1/chat/stream", json=ask) as response:
                for line in response.iter_lines():
                    if line.startswith("event: run_started"):
                        break  # and leave
        [(conversation_id, outcome)] = _chat_records(caplog)

    with http(live_server(**durable, temporal_worker=True)) as client:
        opening = [UserMessage("add a task to buy milk")]
        workflow_id = chat_workflow_id(conversation_id, opening)
        status = asyncio.run(_run_status(temporal_server.address, workflow_id))
        tasks = client.get("/api/v1/tasks").json()["tasks"]
        conversation = client.get(f"/api/v1/conversations/{conversation_id}")

    assert outcome == ("model_timeout" if how == "deadline" else "interrupted")
    assert status == "CANCELED"
    assert tasks == []
    assert conversation.status_code == 404


def _chat_records(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    """The requests ``taskchat.chat`` logged, once there is one (a request logs as it ends,
    after cancelling its run): conversation id and outcome."""
    for _ in range(1000):  # at most ~10 s
        found = [
            (str(r.taskchat_conversation_id), str(r.taskchat_outcome))
            for r in caplog.records
            if r.name == "taskchat.chat"
        ]
        if found:
            return found
        time.sleep(0.01)
    raise AssertionError("the request never ended")


async def _run_status(address: str, workflow_id: str) -> str:
    """How the run ended, once it has."""
    handle = (await Client.connect(address)).get_workflow_handle(workflow_id)
    with pytest.raises(WorkflowFailureError):
        await handle.result()
    description = await handle.describe()
    assert description.status is not None
    return description.status.name


def test_a_conversation_suspended_in_the_process_is_finished_there_and_continues_durably(
    live_server: StartServer,
    new_chat: NewChat,
    durable: dict[str, Any],
    deletions: Callable[[], list[int]],
) -> None:
    """The flag switched on between a question and its answer."""
    with http(live_server()) as client:
        chat = new_chat(client)
        chat.say("add a task to water the plants")
        assert deletions() == []
        asked = chat.say("delete water the plants")
    assert asked["reply"] == "I'll delete task #1 “Water the plants” once you confirm."

    with http(live_server(**durable, temporal_worker=True)) as client:
        on_temporal = new_chat(client)
        on_temporal.conversation_id, on_temporal.last = chat.conversation_id, asked
        approved = on_temporal.answer("approve")

    assert approved["reply"] == "Deleted task #1 “Water the plants”."
    assert [r["name"] for r in approved["tool_results"]] == ["delete_task"]
    assert deletions() == [1]


# -- without Temporal ------------------------------------------------------------------------------


def test_a_conversation_waiting_in_temporal_is_refused_by_a_server_without_the_flag(
    database_url: str, client: httpx.Client
) -> None:
    """Its answer is a 503 before anything runs; the pending turn stays."""
    database = open_database(database_url)
    conversations = ConversationStore(database)
    waiting = PendingTurn(
        "chat-x-1", 0, (PendingCall("call_1", "delete_task", {"task_id": 1}),), durable=True
    )
    conversation = conversations.save(conversations.new(), (), waiting)
    database.close()

    answer = {"conversation_id": conversation.id, "confirmations": {"call_1": "approve"}}
    refused = client.post("/api/v1/chat", json=answer)

    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "durable_run_unavailable"
    stored = client.get(f"/api/v1/conversations/{conversation.id}").json()
    assert stored["pending_confirmations"] == [
        {"call_id": "call_1", "name": "delete_task", "arguments": {"task_id": 1}}
    ]


def test_a_durable_pending_turn_round_trips_through_json_and_a_local_one_is_unchanged() -> None:
    durable = PendingTurn(
        "chat-x-1",
        0,
        (PendingCall("c", "delete_task", {"task_id": 1}),),
        (ToolResultMessage("a", "query_tasks", "Found 1 task."),),
        True,
        stored=3,
    )
    local = PendingTurn("run", 2, (PendingCall("c", "delete_task", {"task_id": 1}),))

    assert PendingTurn.from_json(durable.to_json()) == durable
    assert (durable.to_json()["durable"], durable.to_json()["stored"]) == (True, 3)
    assert "durable" not in local.to_json()  # the stored shape of specs/TASKCHAT.md
    assert "stored" not in local.to_json()
    assert PendingTurn.from_json(local.to_json()) == local


def test_the_flag_comes_from_the_environment_or_the_command_line() -> None:
    environ = {"TASKCHAT_TEMPORAL": "temporal:7233", "TASKCHAT_TASK_QUEUE": "chats"}

    assert not Settings().durable
    assert Settings.from_env(environ).durable
    assert (Settings.from_env(environ).temporal, Settings.from_env(environ).task_queue) == (
        "temporal:7233",
        "chats",
    )
    assert Settings.from_env({}, temporal="t:1", task_queue="q").task_queue == "q"
    with pytest.raises(ValueError, match="temporal_worker needs temporal"):
        Settings(temporal_worker=True)


def test_serve_refuses_a_worker_without_temporal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKCHAT_TEMPORAL", raising=False)
    database = f"sqlite:///{tmp_path / 't.db'}"

    assert main(["serve", "--database-url", database, "--temporal-worker"]) == 2
    assert "temporal_worker needs temporal" in capsys.readouterr().err
