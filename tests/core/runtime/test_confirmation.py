"""Destructive tools wait for the caller's approval; resuming keeps the turn's other results."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from entity_tools import LookupParams, make_prompt

from affordance import PromptEvaluationError, ToolResult
from affordance.runtime import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    Session,
    ToolInvoked,
    approve,
    declined_result,
    deny,
    is_declined,
)
from affordance.runtime.record.confirmation import Confirmation, answer_problems
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
    assert result == declined_result("delete", "keep it")


def test_a_declined_call_is_told_apart_from_a_failed_one_by_result_or_transcript_text():
    adapter = scripted()
    first = adapter.evaluate(PROMPT)
    second = adapter.evaluate(PROMPT, session=first.session, confirmations={"del": deny()})
    results = {r.call.id: r.result for r in second.tool_results}
    assert is_declined(results["del"])
    assert not is_declined(results["look"])  # it ran
    assert not is_declined(ToolResult.error("Tool 'delete' timed out after 1s."))
    told = [m.content for m in adapter.requests[1].messages if getattr(m, "call_id", "") == "del"]
    assert [is_declined(text) for text in told] == [True]
    assert not is_declined("The user asked to run 'delete'")


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


# -- answers that do not fit the pending calls -------------------------------------------------


def test_answer_problems_names_the_calls_of_each_problem_in_order() -> None:
    answers: Mapping[str, Any] = {"b": approve(), "x": deny(), "a": True, "w": approve()}

    assert answer_problems(["a", "b", "c", "d"], answers) == (
        "calls that are not pending: w, x; "
        "no answer for pending calls: c, d; "
        "not an approve()/deny() answer: a"
    )


def test_answer_problems_is_empty_when_every_pending_call_has_its_answer() -> None:
    assert answer_problems(["a", "b"], {"a": approve(), "b": deny("no")}) == ""
    assert answer_problems(("a",), MappingProxyType({"a": Confirmation(True)})) == ""


@pytest.mark.parametrize(
    "answer",
    [True, False, None, "approve", {"approved": True}, (True, "")],
    ids=["true", "false", "none", "str", "dict", "tuple"],
)
def test_answer_problems_refuses_an_answer_that_is_not_a_confirmation(answer: object) -> None:
    answers: Mapping[str, Any] = {"a": answer, "b": approve()}

    assert answer_problems(["a", "b"], answers) == "not an approve()/deny() answer: a"


def test_answer_problems_refuses_answers_for_calls_that_are_not_pending() -> None:
    assert answer_problems(["a"], {"a": approve(), "z": deny()}) == (
        "calls that are not pending: z"
    )
    assert answer_problems([], {"z": approve()}) == "calls that are not pending: z"


def refused_resume(confirmations: Any, *, mode: str = "evaluate") -> PromptEvaluationError:
    """Suspend the scripted run on ``del``, resume it with ``confirmations`` (which must be
    refused), check nothing ran, then resume it properly; the refusal."""
    adapter = scripted()
    first = adapter.evaluate(PROMPT)
    bus = EventBus()
    invoked: list[ToolInvoked] = []
    bus.subscribe(ToolInvoked, invoked.append)

    def resume() -> object:
        options: dict[str, Any] = {"session": first.session, "bus": bus}
        if mode == "aevaluate":
            return asyncio.run(adapter.aevaluate(PROMPT, **options, confirmations=confirmations))
        if mode == "stream":
            return adapter.stream(PROMPT, **options, confirmations=confirmations)
        return adapter.evaluate(PROMPT, **options, confirmations=confirmations)

    with pytest.raises(PromptEvaluationError) as raised:
        resume()
    assert raised.value.phase == "confirm"
    assert invoked == []  # nothing ran: not the destructive call, nor any other
    assert len(adapter.requests) == 1
    assert first.session.pending_call_ids() == ("del",)  # still suspended, and resumable
    done = adapter.evaluate(PROMPT, session=first.session, confirmations={"del": approve()})
    assert done.text == "all done"
    assert {r.call.id: r.result.message for r in done.tool_results}["del"] == "Deleted a."
    return raised.value


@pytest.mark.parametrize("mode", ["evaluate", "aevaluate", "stream"])
def test_an_answer_for_a_call_that_is_not_pending_is_refused_naming_it(mode: str) -> None:
    error = refused_resume({"del": approve(), "other": approve()}, mode=mode)

    assert (
        error.message
        == "confirmations do not fit the pending calls (calls that are not pending: other)"
    )


def test_an_answer_for_a_call_of_the_turn_that_already_ran_is_refused() -> None:
    error = refused_resume({"del": approve(), "look": deny()})

    assert "calls that are not pending: look" in error.message


@pytest.mark.parametrize(
    "answer",
    [True, None, "approve", {"approved": True, "message": ""}],
    ids=["true", "none", "str", "dict"],
)
@pytest.mark.parametrize("mode", ["evaluate", "aevaluate", "stream"])
def test_an_answer_that_is_not_approve_or_deny_is_refused(answer: object, mode: str) -> None:
    error = refused_resume({"del": answer}, mode=mode)

    assert error.message == (
        "confirmations do not fit the pending calls (not an approve()/deny() answer: del)"
    )


@pytest.mark.parametrize(
    "confirmations", [["del"], ("del",), "del", {"del"}], ids=["list", "tuple", "str", "set"]
)
def test_confirmations_that_are_not_a_mapping_are_refused(confirmations: Any) -> None:
    error = refused_resume(confirmations)

    assert error.message.startswith("confirmations must map each pending call id")
