"""Destructive tools wait for the caller's approval; resuming keeps the turn's other results."""

from __future__ import annotations

import asyncio

import pytest
from entity_tools import LookupParams, make_prompt

from affordance import PromptEvaluationError
from affordance.runtime import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    Session,
    ToolInvoked,
    approve,
    deny,
)
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

PROMPT = make_prompt()


def scripted() -> ScriptedAdapter:
    return ScriptedAdapter(
        [
            tool_calls(
                tool_call("lookup", {"entity_id": "a"}, call_id="look"),
                tool_call("delete", {"entity_id": "a"}, call_id="del"),
            ),
            text("all done"),
        ]
    )


def test_a_destructive_call_comes_back_pending_with_validated_arguments():
    adapter = scripted()
    bus = EventBus()
    requested: list[ConfirmationRequested] = []
    bus.subscribe(ConfirmationRequested, requested.append)
    response = adapter.evaluate(PROMPT, bus=bus)
    assert response.needs_confirmation
    assert response.finish_reason == "confirmation_required"
    (pending,) = response.pending_confirmations
    assert (pending.call_id, pending.name) == ("del", "delete")
    assert pending.params == LookupParams("a")
    assert pending.arguments == {"entity_id": "a", "limit": 1}
    assert [e.call_id for e in requested] == ["del"]
    assert response.session.pending_call_ids() == ("del",)
    assert len(adapter.requests) == 1


@pytest.mark.parametrize("asynchronous", [False, True])
def test_approving_runs_the_call_and_keeps_the_other_results_of_the_turn(asynchronous):
    adapter = scripted()
    first = adapter.evaluate(PROMPT)
    if asynchronous:
        second = asyncio.run(
            adapter.aevaluate(PROMPT, session=first.session, confirmations={"del": approve()})
        )
    else:
        second = adapter.evaluate(PROMPT, session=first.session, confirmations={"del": approve()})
    assert second.text == "all done"
    results = {r.call.id: r.result for r in second.tool_results}
    assert results["look"].success
    assert results["del"].message == "Deleted a."
    contents = [getattr(m, "content", None) for m in adapter.requests[1].messages]
    assert "Deleted a." in contents
    assert second.session.pending_call_ids() == ()


def test_denying_reports_the_refusal_to_the_model():
    adapter = scripted()
    bus = EventBus()
    resolved: list[ConfirmationResolved] = []
    invoked: list[ToolInvoked] = []
    bus.subscribe(ConfirmationResolved, resolved.append)
    bus.subscribe(ToolInvoked, invoked.append)
    first = adapter.evaluate(PROMPT, bus=bus)
    second = adapter.evaluate(PROMPT, session=first.session, confirmations={"del": deny("keep it")})
    result = {r.call.id: r.result for r in second.tool_results}["del"]
    assert not result.success
    assert result.message == "The user declined to run 'delete'; it was not run. Reason: keep it"
    assert [(e.call_id, e.approved, e.message) for e in resolved] == [("del", False, "keep it")]
    assert sorted(e.call_id for e in invoked) == ["del", "look"]


def test_confirmations_need_the_suspended_session():
    adapter = scripted()
    adapter.evaluate(PROMPT)
    with pytest.raises(PromptEvaluationError, match="needs the session"):
        adapter.evaluate(PROMPT, confirmations={"del": approve()})
    with pytest.raises(PromptEvaluationError, match="no suspended evaluation"):
        adapter.evaluate(PROMPT, session=Session(), confirmations={"del": approve()})


def test_every_pending_call_needs_an_answer():
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("delete", {"entity_id": "a"}, call_id="d1"),
                tool_call("delete", {"entity_id": "b"}, call_id="d2"),
            ),
            text("done"),
        ]
    )
    first = adapter.evaluate(PROMPT)
    with pytest.raises(PromptEvaluationError, match="no answer for pending calls: d2"):
        adapter.evaluate(PROMPT, session=first.session, confirmations={"d1": approve()})
    done = adapter.evaluate(
        PROMPT, session=first.session, confirmations={"d1": approve(), "d2": deny()}
    )
    assert [r.result.success for r in done.tool_results] == [True, False]


def test_invalid_arguments_to_a_destructive_tool_are_refused_before_asking():
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delete", {"entity_id": ""})), text("fixed it")]
    )
    response = adapter.evaluate(PROMPT)
    assert not response.needs_confirmation
    assert "entity_id" in response.tool_results[0].result.message


def test_resuming_with_another_prompt_is_refused():
    adapter = scripted()
    first = adapter.evaluate(PROMPT)
    with pytest.raises(PromptEvaluationError, match="resume it with that prompt"):
        adapter.evaluate(make_prompt(), session=first.session, confirmations={"del": approve()})
