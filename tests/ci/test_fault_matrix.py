"""specs/RELIABILITY.md's fault matrix is the one the contract tests run: rendered from the same
rows and provider profiles, and refused when the two drift apart."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from fault_profiles import PROFILES

from affordance_testing.faults import FAULT_ROWS, render_fault_matrix

ROOT = Path(__file__).resolve().parents[2]


def load_fault_matrix() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fault_matrix", ROOT / "ci" / "fault_matrix.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fault_matrix = load_fault_matrix()


def test_the_spec_holds_the_matrix_the_tests_run() -> None:
    published = fault_matrix.published(fault_matrix.SPEC.read_text())

    assert published == fault_matrix.table(), "rerun `python3 dev.py faults`"


def test_every_row_and_provider_has_its_place_in_the_table() -> None:
    table = render_fault_matrix(PROFILES)

    for row in FAULT_ROWS:
        assert f"| `{row.name}` |" in table
    for profile in PROFILES:
        assert f"| {profile.provider} |" in table


def test_a_row_that_does_not_apply_says_why() -> None:
    table = render_fault_matrix(PROFILES)
    (google_line,) = [line for line in table.splitlines() if "`arguments-not-json`" in line]

    assert "n/a — `functionCall.args` is always a JSON object" in google_line


def test_rewriting_replaces_only_the_section_between_the_markers() -> None:
    text = f"# Spec\n\nbefore\n{fault_matrix.START}\nold\n{fault_matrix.END}\nafter\n"

    new = fault_matrix.rewritten(text, "new table\n")

    assert new == f"# Spec\n\nbefore\n{fault_matrix.START}\nnew table\n{fault_matrix.END}\nafter\n"
    assert fault_matrix.published(new) == "new table\n"


def test_a_spec_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="lacks the markers"):
        fault_matrix.rewritten("# Spec\n", "table\n")
