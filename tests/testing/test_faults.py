"""The fault matrix's data holds together: every wire fault is documented and used, each case
has its own test id, a deviation names a real row and modes it applies to, and the table shows
what each provider does."""

from __future__ import annotations

from typing import get_args

import pytest

from affordance_testing.faults import (
    FAULT_CASES,
    FAULT_ROWS,
    PLAIN,
    STREAMED,
    WIRE_FAULTS,
    Answered,
    Deviation,
    FaultProfile,
    FaultRow,
    Raised,
    ToolFailed,
    WireFault,
    render_fault_matrix,
)


def test_every_wire_fault_is_documented_and_some_row_injects_it() -> None:
    faults = set(get_args(WireFault))

    assert set(WIRE_FAULTS) == faults
    assert {row.wire for row in FAULT_ROWS if row.wire is not None} == faults


def test_each_case_has_its_own_test_id() -> None:
    ids = [f"{row.name}-{mode}" for row, mode in FAULT_CASES]

    assert len(ids) == len(set(ids))
    assert len({row.name for row in FAULT_ROWS}) == len(FAULT_ROWS)


def test_model_rows_build_their_arguments_only_when_run() -> None:
    (big,) = [row for row in FAULT_ROWS if row.name == "arguments-over-1mb"]

    assert big.arguments is not None
    assert len(big.arguments()) > 1_048_576


def test_a_row_is_a_wire_fault_or_a_model_fault_never_both() -> None:
    with pytest.raises(ValueError, match="exactly one of wire and arguments"):
        FaultRow("both", "?", Answered(), wire="overloaded", arguments=lambda: "{}")
    with pytest.raises(ValueError, match="modes"):
        FaultRow("none", "?", Answered(), modes=(), wire="overloaded")


def test_a_deviation_names_a_row_and_keeps_to_its_modes() -> None:
    with pytest.raises(ValueError, match="no fault row is named"):
        Deviation("no-such-row", "why")
    with pytest.raises(ValueError, match="covers none of its modes"):
        Deviation("read-timeout", "why", modes=STREAMED)

    assert Deviation("server-error", "why", modes=PLAIN).modes == PLAIN


def test_a_profile_answers_the_rows_outcome_unless_it_deviates() -> None:
    rows = {row.name: row for row in FAULT_ROWS}
    profile = FaultProfile(
        "Example",
        "its SDK",
        deviations=(
            Deviation("arguments-not-json", "objects only"),
            Deviation("empty-answer", "says so", Raised("response"), modes=STREAMED),
        ),
    )

    assert profile.expected(rows["unknown-tool"], "evaluate") == ToolFailed(
        "Unknown tool 'no_such_tool'"
    )
    assert profile.expected(rows["arguments-not-json"], "stream") is None
    assert profile.expected(rows["empty-answer"], "evaluate") == Answered(empty=True)
    assert profile.expected(rows["empty-answer"], "astream") == Raised("response")

    table = render_fault_matrix([profile])
    (line,) = [line for line in table.splitlines() if line.startswith("| `empty-answer`")]
    assert "| streamed: `PromptEvaluationError` (phase `response`" in line
    assert "— says so |" in line
