"""Request ids reach the library's tool-call logs, and no log record carries task content —
through the plain endpoint and the streaming one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from loopback import JsonReply, LoopbackServer

TITLE = "Zanzibar quokka 7781"
DESCRIPTION = "ledger passphrase 4412"
PR_BODY = "the launch codes are 0000"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_no_log_record_carries_task_content_and_tool_logs_carry_request_ids(
    make_app: Callable[..., Any],
    new_chat: Callable[..., Any],
    github: LoopbackServer,
    caplog: pytest.LogCaptureFixture,
    stream: bool,
) -> None:
    caplog.set_level(logging.DEBUG)
    github.script(
        "/repos/octo/repo/issues/3",
        JsonReply({"title": f"{TITLE} issue", "state": "open", "body": PR_BODY}),
        method="GET",
    )
    with TestClient(make_app()) as client:
        chat = new_chat(client, stream=stream)
        chat.headers = {"X-Request-ID": "req-create"}
        chat.say(f"add a task to {TITLE} due friday tagged secret -- {DESCRIPTION}")
        chat.headers = {"X-Request-ID": "req-work"}
        chat.say(f"add a task to {TITLE} with bogus priority")  # fails validation
        chat.say("list my tasks in detail")
        chat.say(f"rename task 1 to {TITLE} renamed")
        chat.say("attach https://github.com/octo/repo/issues/3 to task 1")
        chat.say("refresh task 1")
        chat.say(f"delete {TITLE} renamed")
        chat.headers = {"X-Request-ID": "req-confirm"}
        chat.answer("approve")
        chat.headers = {}
        path = "/api/v1/chat/stream" if stream else "/api/v1/chat"
        client.post(path, json={"message": TITLE, "confirmations": {"x": "oops"}})
        if stream:  # the task content went to the client, and only there
            assert TITLE in "".join(data.get("text", "") for _, data in chat.events)

    for record in caplog.records:
        everything = f"{record.getMessage()} {vars(record)!r}"
        for secret in (TITLE, DESCRIPTION, PR_BODY, "quokka", "passphrase"):
            assert secret not in everything, (record.name, record.getMessage())
        assert not hasattr(record, "affordance_content")
    tool_records = [r for r in caplog.records if r.name == "affordance.tools"]
    by_request = {(r.request_id, r.affordance_tool) for r in tool_records}  # type: ignore[attr-defined]
    assert ("req-create", "create_task") in by_request
    assert ("req-work", "refresh_attachment") in by_request
    assert ("req-confirm", "delete_task") in by_request  # run by taskchat after confirmation
    chat_records = [r for r in caplog.records if r.name == "taskchat.chat"]
    assert {r.request_id for r in chat_records} == {"req-create", "req-work", "req-confirm"}  # type: ignore[attr-defined]
