"""taskchat with the real OpenAI adapter (Responses API) against the loopback OpenAI server:
a turn with reasoning and two parallel calls, one of them destructive, suspended across a
restart and finished from the database — what the provider receives must be the whole turn.

taskchat always runs the model streamed, so every answer is scripted as the Responses event
stream of the body."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from loopback import (
    RESPONSES_PATH,
    LoopbackServer,
    openai_server,
    response_function_calls,
    response_text,
    responses_stream,
)

openai = pytest.importorskip("openai")
affordance_openai = pytest.importorskip("affordance_openai")


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with openai_server() as loopback:
        yield loopback


def _adapter(server: LoopbackServer) -> tuple[Any, Any]:
    client = openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key="test",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(verify=False),
    )
    return affordance_openai.OpenAIAdapter("gpt-test", async_client=client), client


def test_a_suspended_openai_turn_is_finished_after_a_restart(
    server: LoopbackServer,
    make_app: Callable[..., Any],
    new_chat: Callable[[TestClient], Any],
    tasks: Callable[[TestClient], list[dict[str, Any]]],
) -> None:
    server.script(
        RESPONSES_PATH,
        responses_stream(response_function_calls([("c0", "create_task", {"title": "Old"})])),
        responses_stream(response_text("Created task #1.")),
        responses_stream(
            response_function_calls(
                [("c1", "create_task", {"title": "New"}), ("c2", "delete_task", {"task_id": 1})],
                reasoning="replace the old task",
            )
        ),
    )
    adapter, client = _adapter(server)
    with TestClient(make_app(adapter=adapter)) as first:
        chat = new_chat(first)
        chat.say("add Old")
        asked = chat.say("replace Old with New")
        assert [r["name"] for r in asked["tool_results"]] == ["create_task"]
        assert [p["call_id"] for p in asked["pending_confirmations"]] == ["c2"]
        first.portal.call(client.close)  # type: ignore[union-attr]

    server.script(RESPONSES_PATH, responses_stream(response_text("Replaced Old with New.")))
    adapter, client = _adapter(server)
    with TestClient(make_app(adapter=adapter)) as second:
        resumed = new_chat(second)
        resumed.conversation_id, resumed.last = chat.conversation_id, chat.last

        done = resumed.answer("approve")

        assert done["reply"] == "Replaced Old with New."
        assert [t["title"] for t in tasks(second)] == ["New"]
        second.portal.call(client.close)  # type: ignore[union-attr]
    server.assert_script_consumed()
    last = server.requests_to(RESPONSES_PATH)[-1].body
    assert last["stream"] is True
    items = last["input"]
    kinds = [(item.get("type"), item.get("call_id")) for item in items]
    assert kinds[-5:] == [
        ("reasoning", None),
        ("function_call", "c1"),
        ("function_call", "c2"),
        ("function_call_output", "c1"),
        ("function_call_output", "c2"),
    ]
    outputs = [item["output"].split("\n")[0] for item in items[-2:]]
    assert outputs == ["Created task #2.", "Deleted task #1."]
