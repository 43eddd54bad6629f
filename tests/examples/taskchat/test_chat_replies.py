"""What a chat request tells the client, over HTTP: turn numbers that only go up through an
answered confirmation (after a restart, and through a second confirmation too), and a declined
call told apart from a failed one — in the stream, in the reply and in the stored conversation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

Chat = Any  # conftest's Chat helper
Event = tuple[str, dict[str, Any]]
AppFactory = Callable[..., Any]
NewChat = Callable[..., Chat]


def _turns(events: list[Event]) -> list[tuple[str, int]]:
    """Each event that carries a turn number, with it, in the order sent."""
    return [(name, data["turn"]) for name, data in events if "turn" in data]


def _of(events: list[Event], name: str) -> list[dict[str, Any]]:
    return [data for event, data in events if event == name]


# -- turn numbers ------------------------------------------------------------------------------


def test_a_resumed_stream_numbers_the_models_answer_after_the_answered_turn(
    stream_chat: Chat,
) -> None:
    stream_chat.say("add a task to water the plants")
    stream_chat.say("delete water the plants")
    asked = _turns(stream_chat.events)
    assert asked[-1] == ("turn_finished", 2)  # turn 1 looked the task up, turn 2 asked

    stream_chat.answer("approve")

    answered = _turns(stream_chat.events)
    assert answered[0] == ("tool_call_finished", 2)  # the approved call, in the turn that made it
    assert {turn for _, turn in answered[1:]} == {3}  # the model's answer: the next turn
    assert ("turn_finished", 3) in answered


def test_turns_keep_rising_through_a_second_confirmation_and_a_restart(
    make_app: AppFactory, new_chat: NewChat
) -> None:
    """The run that continues an approved turn asks again; its turns, and the turn of the
    call it asks for, are numbered after the first — also when answered by a restarted
    server."""
    first_model = ScriptedAdapter(
        [
            tool_calls(
                tool_call("create_task", {"title": "A"}, call_id="a"),
                tool_call("create_task", {"title": "B"}, call_id="b"),
            ),
            text("Created both."),
            tool_calls(tool_call("delete_task", {"task_id": 1}, call_id="d1")),
            tool_calls(tool_call("delete_task", {"task_id": 2}, call_id="d2")),  # after d1
        ]
    )
    with TestClient(make_app(adapter=first_model)) as first:
        before = new_chat(first, stream=True)
        before.say("add a and b")
        before.say("delete both")
        assert [p["call_id"] for p in before.answer("approve")["pending_confirmations"]] == ["d2"]
        second_asked = _turns(before.events)
    assert second_asked[0] == ("tool_call_finished", 1)  # d1, asked in the run's turn 1
    assert ("tool_call_started", 2) in second_asked  # d2: the continuing run's turn 1 is 2
    assert [turn for _, turn in second_asked] == sorted(turn for _, turn in second_asked)

    with TestClient(make_app(adapter=ScriptedAdapter([text("Both deleted.")]))) as second:
        after = new_chat(second, stream=True)
        after.conversation_id, after.last = before.conversation_id, before.last
        assert after.answer("approve")["reply"] == "Both deleted."
        answered = _turns(after.events)

    assert answered[0] == ("tool_call_finished", 2)  # d2, in the turn the stream showed it
    assert {turn for _, turn in answered[1:]} == {3}


# -- declined calls ------------------------------------------------------------------------------


def test_a_declined_call_is_told_apart_from_a_failed_one(
    stream_chat: Chat, client: TestClient
) -> None:
    stream_chat.say("add a task to water the plants with urgent priority")  # invalid arguments
    [failed] = _of(stream_chat.events, "tool_call_finished")
    stream_chat.say("add a task to water the plants")
    stream_chat.say("delete water the plants")

    denied = stream_chat.answer("deny")

    assert (failed["success"], failed["declined"]) == (False, False)
    [finished] = _of(stream_chat.events, "tool_call_finished")
    assert (finished["name"], finished["success"], finished["declined"]) == (
        "delete_task",
        False,
        True,
    )
    [result] = denied["tool_results"]
    assert (result["success"], result["declined"]) == (False, True)
    history = client.get(f"/api/v1/conversations/{stream_chat.conversation_id}").json()
    tools = [(m["name"], m["success"], m["declined"]) for m in history["messages"]]
    assert ("create_task", False, False) in tools  # the failed call
    assert tools[-2:] == [("delete_task", False, True), (None, None, None)]  # declined; reply
