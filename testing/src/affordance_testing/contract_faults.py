"""The fault matrix as the contract runs it: what the fake server (or its model) is scripted
to do for a row (:func:`script_fault_row`), and the check that a run ended as the provider's
profile says it must (:func:`check_fault_outcome`), down to the requests the server received.

``AdapterContract.test_fault`` runs these for each row in each mode
(:mod:`affordance_testing.faults`).
"""

from __future__ import annotations

from typing import Any

from affordance.adapters import ProviderTurn, ToolCall
from affordance.errors import PromptEvaluationError
from affordance.runtime import PromptResponse
from affordance_testing.contract_fixtures import ContractWire
from affordance_testing.faults import (
    ANSWER,
    FAULT_REQUEST_ID,
    Answered,
    FaultRow,
    Outcome,
    Raised,
    ToolFailed,
)

__all__ = ["check_fault_outcome", "script_fault_row"]


def script_fault_row(wire: ContractWire, row: FaultRow) -> None:
    """What the server (or its model) answers in ``row``: the fault, then the answer when the
    row is one the run survives."""
    survives = isinstance(row.outcome, ToolFailed) or (
        isinstance(row.outcome, Answered) and row.outcome.retried
    )
    if row.wire is not None:
        wire.script_fault(row.wire)
    else:
        assert row.arguments is not None
        arguments = row.arguments()
        wire.script(
            *(
                ProviderTurn(
                    tool_calls=(ToolCall(f"call_{turn}", row.tool, arguments),),
                    finish_reason="tool_calls",
                )
                for turn in range(1, row.calling_turns + 1)
            )
        )
    if survives:
        wire.script(ProviderTurn(text=ANSWER))


def check_fault_outcome(
    expected: Outcome,
    row: FaultRow,
    wire: ContractWire,
    response: PromptResponse[Any] | None,
    error: PromptEvaluationError | None,
    provider: str,
) -> None:
    requests = wire.requests()
    if isinstance(expected, Raised):
        assert error is not None, f"expected {expected.describe()}, the run answered {response}"
        if expected.phase in ("request", "response"):
            assert error.provider == provider
        want = (expected.phase, expected.status, FAULT_REQUEST_ID if expected.request_id else None)
        assert (error.phase, error.status, error.request_id) == want, error
        if expected.requests == "retried":
            assert len(requests) > 1
        elif expected.requests is not None:
            assert len(requests) == expected.requests
        if row.arguments is not None:  # each call got its one result before the next request
            for turn, body in enumerate(requests[1:], start=1):
                assert wire.tool_results(body) == [(f"call_{turn}", False)]
        return
    assert error is None, f"expected {expected.describe()}, got {error!r}"
    assert response is not None
    if isinstance(expected, Answered):
        assert response.text == (None if expected.empty else ANSWER)
        assert len(requests) == (2 if expected.retried else 1)
        return
    assert response.text == ANSWER
    assert len(requests) == 2
    (result,) = response.tool_results
    assert result.call.id == "call_1"
    assert not result.result.success
    assert expected.detail in result.result.message
    assert wire.tool_results(requests[1]) == [("call_1", True)]
