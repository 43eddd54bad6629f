"""A call id is the unit of approval: a turn whose calls share an id is refused before anything
runs, an id waits for an answer in one run of a session at a time, and an approval runs exactly
the call it names (``affordance_testing.contract_approvals``, here on the offline adapter)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest

from affordance import PromptEvaluationError
from affordance.runtime import Session, approve, deny
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_testing.contract_approvals import (
    APPROVAL_CASES,
    ApprovalCase,
    approval_prompt,
    approval_property,
    check_approval_case,
    model_of,
)
from affordance_testing.contract_runs import run
from affordance_testing.faults import MODES, Mode

Model = Callable[[str], ProviderTurn]


class _Wire:
    """The offline adapter's side of a case: the model answers from the request's transcript."""

    def __init__(self) -> None:
        self.model: Model = lambda body: text("unused")

    def respond(self, model: Model) -> None:
        self.model = model

    def make_adapter(self, kind: Literal["sync", "async"]) -> ScriptedAdapter:
        return ScriptedAdapter(responder=self._answer, stream_chunk=3)

    def _answer(self, request: ModelRequest) -> ProviderTurn:
        return self.model(repr(request.messages))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", APPROVAL_CASES, ids=str)
def test_one_approval_runs_one_call(mode: Mode, case: ApprovalCase) -> None:
    wire = _Wire()
    wire.respond(model_of(case))

    check_approval_case(wire.make_adapter, mode, case)


def test_no_destructive_call_runs_without_an_approval_naming_it() -> None:
    pytest.importorskip("hypothesis")
    wire = _Wire()

    approval_property(wire.respond, wire.make_adapter)()


@pytest.mark.parametrize("mode", MODES)
def test_a_turn_whose_calls_share_an_id_is_refused_before_any_runs(mode: Mode) -> None:
    deleted: list[tuple[str, str]] = []
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("delete", {"entity_id": "a"}, call_id="call_7"),
                tool_call("delete", {"entity_id": "b"}, call_id="call_7"),
            )
        ]
    )

    with pytest.raises(PromptEvaluationError) as raised:
        _run(adapter, mode, approval_prompt(deleted))

    assert raised.value.phase == "response"
    assert raised.value.provider == "scripted"
    assert "more than one tool call with the id 'call_7'" in str(raised.value)
    assert deleted == []


def test_an_id_waiting_in_one_run_cannot_wait_in_another_run_of_the_session() -> None:
    deleted: list[tuple[str, str]] = []
    prompt = approval_prompt(deleted)
    session = Session()
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("delete", {"entity_id": "first"}, call_id="call_1")),
            tool_calls(tool_call("delete", {"entity_id": "second"}, call_id="call_1")),
            text("Done."),
        ]
    )
    first = adapter.evaluate(prompt, session=session)
    assert [p.arguments for p in first.pending_confirmations] == [{"entity_id": "first"}]

    with pytest.raises(PromptEvaluationError) as raised:
        adapter.evaluate(prompt, session=session)

    assert raised.value.phase == "confirm"
    assert "call_1 wait for an answer in another evaluation" in str(raised.value)
    finished = adapter.evaluate(prompt, session=session, confirmations={"call_1": approve()})
    assert finished.text == "Done."
    assert deleted == [("call_1", "first")]  # the call shown when the answer was given


def test_a_run_may_wait_again_on_an_id_once_its_answer_was_given() -> None:
    deleted: list[tuple[str, str]] = []
    prompt = approval_prompt(deleted)
    session = Session()
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("delete", {"entity_id": "a"}, call_id="call_1")),
            text("No."),
            tool_calls(tool_call("delete", {"entity_id": "b"}, call_id="call_1")),
            text("Done."),
        ]
    )
    adapter.evaluate(prompt, session=session)
    adapter.evaluate(prompt, session=session, confirmations={"call_1": deny()})

    second = adapter.evaluate(prompt, session=session)
    adapter.evaluate(prompt, session=session, confirmations={"call_1": approve()})

    assert [p.arguments for p in second.pending_confirmations] == [{"entity_id": "b"}]
    assert deleted == [("call_1", "b")]


def _run(adapter: ScriptedAdapter, mode: Mode, prompt: Any, **options: Any) -> Any:
    return run(lambda kind: adapter, mode, prompt, **options)
