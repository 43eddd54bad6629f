"""A destructive tool served over MCP runs only once the client's user confirms it, asked by a
form elicitation: ``elicitation/create`` on a 2025-11-25 connection, an
``InputRequiredResult`` on a 2026-07-28 one (``affordance_mcp.confirmations``)."""

from __future__ import annotations

from typing import Any

import mcp
import pytest
from mcp import types
from mcp_serve_board import Board, build_prompt
from mcp_serve_support import MODES, User, run, text_of

from affordance_mcp.serving import server_for

ACCEPTED = types.ElicitResult(action="accept", content={"confirm": True})


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def delete(
    mode: str, user: User | None, board: Board, arguments: dict[str, Any] | None = None
) -> types.CallToolResult:
    results: list[types.CallToolResult] = []

    async def test() -> None:
        server = server_for(build_prompt(board))
        async with mcp.Client(server, mode=mode, elicitation_callback=user) as client:
            results.append(await client.call_tool("delete_task", arguments or {"task_id": 1}))

    run(test)
    return results[0]


def test_a_confirmed_destructive_call_runs(mode: str) -> None:
    board, user = Board(), User()

    result = delete(mode, user, board)

    assert not result.is_error
    assert text_of(result) == "Deleted task #1."
    assert 1 not in board.tasks


def test_the_user_is_asked_about_the_tool_and_its_arguments_with_one_checkbox(mode: str) -> None:
    user = User()

    delete(mode, user, Board())

    (question,) = user.questions
    assert question.message == (
        "Run the destructive tool 'delete_task' with these arguments?\n" + '{"task_id": 1}'
    )
    requested = question.requested_schema
    assert requested["required"] == ["confirm"]
    assert requested["properties"]["confirm"]["type"] == "boolean"
    assert requested["properties"]["confirm"]["default"] is False


@pytest.mark.parametrize(
    ("user", "reason"),
    [
        (User("decline"), ""),
        (User("cancel"), " Reason: the user dismissed the confirmation"),
        (User("accept", confirm=False), ""),
        (User("accept", confirm=None), ""),
    ],
    ids=["declined", "cancelled", "accepted-unticked", "accepted-empty"],
)
def test_a_call_the_user_does_not_confirm_is_not_run_and_says_so(
    mode: str, user: User, reason: str
) -> None:
    board = Board()

    result = delete(mode, user, board)

    assert result.is_error
    assert text_of(result) == "The user declined to run 'delete_task'; it was not run." + reason
    assert 1 in board.tasks


def test_a_client_that_cannot_elicit_gets_a_refusal_and_nothing_runs(mode: str) -> None:
    board = Board()

    result = delete(mode, None, board)

    assert result.is_error
    assert text_of(result) == (
        "Tool 'delete_task' is destructive and runs only once the user confirms it, but this "
        "MCP client cannot ask: it does not support form elicitation. It was not run."
    )
    assert 1 in board.tasks


def test_invalid_arguments_of_a_destructive_call_are_reported_without_asking(mode: str) -> None:
    user = User()

    result = delete(mode, user, Board(), {"task_id": "one"})

    assert result.is_error
    assert text_of(result).startswith("Invalid arguments for 'delete_task'")
    assert user.questions == []


def test_an_answer_counts_only_for_the_call_it_was_asked_about() -> None:
    """2026-07-28: the ``request_state`` of a question about task 2, sent back with an accepting
    answer for a call about task 1, does not run the call: the user is asked about task 1."""
    board, user = Board(), User("decline")
    results: list[Any] = []

    async def test() -> None:
        server = server_for(build_prompt(board))
        async with mcp.Client(server, elicitation_callback=user) as client:
            asked = await client.session.call_tool(
                "delete_task", {"task_id": 2}, allow_input_required=True
            )
            assert isinstance(asked, types.InputRequiredResult)
            assert asked.input_requests is not None
            assert list(asked.input_requests) == ["confirm"]
            for task_id, state in ((1, asked.request_state), (1, "forged"), (2, "forged")):
                results.append(
                    await client.call_tool(
                        "delete_task",
                        {"task_id": task_id},
                        input_responses={"confirm": ACCEPTED},
                        request_state=state,
                    )
                )
            results.append(
                await client.session.call_tool(
                    "delete_task",
                    {"task_id": 2},
                    input_responses={"confirm": ACCEPTED},
                    request_state=asked.request_state,
                )
            )

    run(test)
    *refused, confirmed = results
    assert [text_of(result) for result in refused] == [
        "The user declined to run 'delete_task'; it was not run."
    ] * 3
    assert [question.message[-14:] for question in user.questions] == [
        '{"task_id": 1}',
        '{"task_id": 1}',
        '{"task_id": 2}',
    ]
    assert text_of(confirmed) == "Deleted task #2."
    assert sorted(board.tasks) == [1]
