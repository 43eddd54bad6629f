"""Every ``422`` has one shape — ``{"error": {"code": "invalid_request", "message": "field:
problem; ...", "problems": [{"field", "problem"}, ...]}}`` — whether the schema or the service
refused the request, on both chat endpoints and the others; a body not sent as JSON, or not a
JSON object, is told so in words."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

Chat = Any  # conftest's Chat helper

NOT_JSON = "the body must be JSON (Content-Type: application/json)"
NOT_AN_OBJECT = 'the body must be a JSON object, such as {"message": "list my tasks"}'


def _problems(response: Any) -> list[tuple[str, str]]:
    """The problems of a 422, once its shape is checked: the message joins them."""
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert set(error) == {"code", "message", "problems"}
    assert error["code"] == "invalid_request"
    problems = [(p["field"], p["problem"]) for p in error["problems"]]
    assert problems
    assert error["message"] == "; ".join(f"{field}: {problem}" for field, problem in problems)
    return problems


@pytest.mark.parametrize("path", ["/api/v1/chat", "/api/v1/chat/stream"])
@pytest.mark.parametrize(
    ("sent", "problems"),
    [
        (
            {"content": b'{"message": "hi"}', "headers": {"content-type": "text/plain"}},
            [("body", NOT_JSON)],
        ),
        ({"content": b'{"message": "hi"}'}, [("body", NOT_JSON)]),  # no content type at all
        ({"data": {"message": "hi"}}, [("body", NOT_JSON)]),  # a form
        ({}, [("body", NOT_JSON)]),  # no body
        ({"json": ["a", "list"]}, [("body", NOT_AN_OBJECT)]),
        (
            {"content": b"", "headers": {"content-type": "application/json"}},
            [("body", NOT_AN_OBJECT)],
        ),
        ({"json": {}}, [("body.message", "must not be empty")]),  # refused by the service
        ({"json": {"message": "  "}}, [("body.message", "must not be empty")]),
        (
            {"json": {"message": 3, "extra": 1}},
            [
                ("body.message", "Input should be a valid string"),
                ("body.extra", "Extra inputs are not permitted"),
            ],
        ),
    ],
)
def test_a_refused_chat_request_lists_its_problems(
    client: TestClient, path: str, sent: dict[str, Any], problems: list[tuple[str, str]]
) -> None:
    assert _problems(client.post(path, **sent)) == problems


def test_a_reason_without_a_denial_is_refused_in_the_same_shape(
    chat: Chat, client: TestClient
) -> None:
    chat.say("add a task to water the plants")
    chat.say("delete task 1")
    [pending] = chat.last["pending_confirmations"]

    response = client.post(
        "/api/v1/chat",
        json={
            "conversation_id": chat.conversation_id,
            "message": "a reason",
            "confirmations": {pending["call_id"]: "approve"},
        },
    )

    assert _problems(response) == [
        (
            "body.message",
            "with confirmations, message is the reason for a denial, and nothing was denied",
        )
    ]


def test_a_bad_path_or_query_is_refused_in_the_same_shape(client: TestClient) -> None:
    [(field, _)] = _problems(client.get("/api/v1/conversations/nope"))
    assert field == "path.conversation_id"
    [(field, problem)] = _problems(client.get("/api/v1/tasks", params={"status": "lost"}))
    assert field == "query.status.0"
    assert problem.startswith("Input should be 'pending'")
