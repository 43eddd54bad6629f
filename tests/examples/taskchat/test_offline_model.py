"""The offline model's reading of user messages, and its answers in a conversation."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest

from affordance.adapters import ModelRequest
from affordance.testing import text
from taskchat.offline import HELP, TaskRef, parse_intent, parse_when
from taskchat.offline import model as offline_model

MONDAY = date(2026, 3, 2)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("today", "2026-03-02"),
        ("tomorrow", "2026-03-03"),
        ("friday", "2026-03-06"),
        ("on Monday", "2026-03-09"),  # the next one, never today
        ("next week", "2026-03-09"),
        ("in 3 days", "2026-03-05"),
        ("in 2 weeks", "2026-03-16"),
        ("2026-04-01", "2026-04-01"),
        ("someday soon", "someday soon"),  # passed on, for the tool to reject
    ],
)
def test_dates_are_read_relative_to_today(phrase: str, expected: str) -> None:
    assert parse_when(phrase, MONDAY) == expected


@pytest.mark.parametrize(
    ("message", "kind", "fields"),
    [
        (
            "Add a task to buy milk due tomorrow with high priority tagged home, errands",
            "CreateTask",
            {
                "arguments": {
                    "title": "Buy milk",
                    "eta": "2026-03-03",
                    "priority": "high",
                    "tags": ["home", "errands"],
                }
            },
        ),
        (
            "please create a task: renew passport -- bring the old photo",
            "CreateTask",
            {"arguments": {"title": "Renew passport", "description": "bring the old photo"}},
        ),
        (
            "remind me to call mom by friday",
            "CreateTask",
            {"arguments": {"title": "Call mom", "eta": "2026-03-06"}},
        ),
        (  # a plain day at the end is the due date, as the welcome page's example has it
            "Add a task to buy milk tomorrow",
            "CreateTask",
            {"arguments": {"title": "Buy milk", "eta": "2026-03-03"}},
        ),
        (
            "add a task to call the bank on friday",
            "CreateTask",
            {"arguments": {"title": "Call the bank", "eta": "2026-03-06"}},
        ),
        (
            "mark buy milk as done",
            "UpdateTask",
            {"ref": TaskRef(None, "buy milk"), "changes": {"status": "completed"}},
        ),
        (
            "complete task #4",
            "UpdateTask",
            {"ref": TaskRef(4, "task #4"), "changes": {"status": "completed"}},
        ),
        (
            "start the report",
            "UpdateTask",
            {"ref": TaskRef(None, "report"), "changes": {"status": "in_progress"}},
        ),
        ("reopen 3", "UpdateTask", {"ref": TaskRef(3, "3"), "changes": {"status": "pending"}}),
        ("make the report urgent", "UpdateTask", {"changes": {"priority": "critical"}}),
        (
            "set the priority of #2 to Low",
            "UpdateTask",
            {"ref": TaskRef(2, "#2"), "changes": {"priority": "low"}},
        ),
        ("rename task 2 to “Pay all bills”", "UpdateTask", {"changes": {"title": "Pay all bills"}}),
        ("move the report to friday", "UpdateTask", {"changes": {"eta": "2026-03-06"}}),
        (
            "update #7: priority high, due tomorrow and tags a b",
            "UpdateTask",
            {"changes": {"priority": "high", "eta": "2026-03-03", "tags": ["a", "b"]}},
        ),
        ("delete the groceries task", "DeleteTask", {"ref": TaskRef(None, "groceries")}),
        ("remove attachment 4", "DeleteAttachment", {"attachment_id": 4}),
        (
            "attach https://github.com/o/r/pull/1 to #2",
            "Attach",
            {"url": "https://github.com/o/r/pull/1"},
        ),
        ("refresh attachment #5", "RefreshAttachment", {"attachment_id": 5}),
        ("refresh the PRs on task 2", "RefreshTask", {"ref": TaskRef(2, "task 2")}),
        ("what can you do?", "Help", {"confused": False}),
        ("sing me a song", "Help", {"confused": True}),
    ],
)
def test_messages_become_intents(message: str, kind: str, fields: dict[str, Any]) -> None:
    intent = parse_intent(message, MONDAY)

    assert type(intent).__name__ == kind
    for name, value in fields.items():
        assert getattr(intent, name) == value, name


@pytest.mark.parametrize(
    ("message", "filters", "response_format", "sort"),
    [
        ("list my tasks", {}, "standard", "eta_asc"),
        ("tasks", {}, "standard", "eta_asc"),
        ("What's on my list?", {}, "standard", "eta_asc"),
        ("what\u2019s on my plate", {}, "standard", "eta_asc"),
        ("show my completed tasks", {"status": ["completed"]}, "standard", "eta_asc"),
        (
            "what high-priority tasks are open?",
            {"status": ["pending", "in_progress"], "priority": ["high", "critical"]},
            "standard",
            "priority_desc",
        ),
        (
            "which tasks are due today",
            {"status": ["pending", "in_progress"], "due_before": "2026-03-03"},
            "standard",
            "eta_asc",
        ),
        (
            "show overdue tasks briefly",
            {"status": ["pending", "in_progress"], "due_before": "2026-03-02"},
            "concise",
            "eta_asc",
        ),
        ("list tasks tagged home in detail", {"tags": ["home"]}, "detailed", "eta_asc"),
        ("show tasks about the trip", {"text": "the trip"}, "standard", "eta_asc"),
    ],
)
def test_list_requests_become_one_consolidated_query(
    message: str, filters: dict[str, Any], response_format: str, sort: str
) -> None:
    intent = parse_intent(message, MONDAY)

    assert type(intent).__name__ == "ListTasks"
    assert intent.arguments == {  # type: ignore[attr-defined]
        "filters": filters,
        "sort": sort,
        "response_format": response_format,
    }


def test_an_ambiguous_name_makes_the_model_ask_which(chat: Any) -> None:
    chat.say("add a task to call the bank")
    chat.say("add a task to call the plumber")

    reply = chat.say("mark call done")

    assert reply["reply"] == (
        "Several tasks match “call”: #1 “Call the bank”, #2 “Call the plumber”. "
        "Which one? Name it by id, like “#1”."
    )
    assert chat.say("mark call the bank done")["reply"] == "Updated task #1 “Call the bank”: done."


def test_an_unknown_name_is_answered_without_acting(chat: Any) -> None:
    reply = chat.say("delete the unicorn")

    assert reply["reply"] == "I found no task matching “unicorn”. Say “list my tasks” to see them."
    assert reply["pending_confirmations"] == []


def test_help_lists_what_it_understands(chat: Any) -> None:
    assert chat.say("hello there")["reply"] == "I didn't understand that. " + HELP
    assert chat.say("help")["reply"] == HELP


def test_a_concise_listing_shows_ids_and_statuses(chat: Any) -> None:
    chat.say("add a task to a")
    chat.say("add a task to b")

    assert chat.say("how many tasks, briefly")["reply"] == (
        "You have 2 tasks: #1 (pending), #2 (pending)."
    )


def test_the_offline_model_types_at_its_pace_when_streamed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--offline-pace``: a wait after each streamed piece; the text itself is unchanged."""
    waits: list[float] = []

    async def recorded_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(offline_model, "respond", lambda request: text("twelve chars"))
    monkeypatch.setattr(offline_model.asyncio, "sleep", recorded_sleep)
    adapter = offline_model.offline_adapter(pace=0.5)
    request: ModelRequest = None  # type: ignore[assignment]  # the responder ignores it

    async def pieces() -> list[Any]:
        return [delta async for delta in adapter.asend_stream(request)]

    deltas = asyncio.run(pieces())

    assert "".join(getattr(d, "text", "") for d in deltas) == "twelve chars"
    assert waits == [0.5] * len(deltas)
    with pytest.raises(ValueError, match="pace must not be negative"):
        offline_model.offline_adapter(pace=-1)
