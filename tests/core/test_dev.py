"""``dev.py``'s matrix summary: a run with skipped environments never reads as a plain success."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

DEV_PY = Path(__file__).resolve().parents[2] / "dev.py"


@pytest.fixture(scope="module")
def dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("affordance_dev_script", DEV_PY)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def journal(tmp_path: Path, results: dict[str, object]) -> Path:
    """A tox ``--result-json`` journal with these per-environment results."""
    path = tmp_path / "result.json"
    envs = {
        name: ({} if result is None else {"result": result}) for name, result in results.items()
    }
    path.write_text(json.dumps({"toxversion": "4", "testenvs": envs}), encoding="utf-8")
    return path


def ok(skipped: bool = False) -> dict[str, object]:
    return {"success": True, "exit_code": 0, "duration": 1.0, "skipped": skipped}


def test_a_complete_run_says_how_many_ran(dev, tmp_path):
    outcomes = dev.read_matrix_result(journal(tmp_path, {"py311-core": ok(), "discovery": ok()}))
    assert dev.matrix_summary(outcomes, []) == "tox matrix: 2 of 2 environments ran; all passed\n"


def test_skipped_environments_are_named_with_the_missing_pythons(dev, tmp_path):
    path = journal(
        tmp_path,
        {
            "py310-core": ok(skipped=True),
            "py310-openai-min": ok(skipped=True),
            "py311-core": ok(),
            "py313-core": {"success": False, "exit_code": 1, "duration": 2.0, "skipped": False},
        },
    )
    summary = dev.matrix_summary(dev.read_matrix_result(path), ["3.10"])
    assert summary.splitlines() == [
        "tox matrix: 2 of 4 environments ran; 1 failed (py313-core)",
        "tox matrix: 2 skipped: py310-core, py310-openai-min (Python 3.10 not found)",
        "tox matrix: INCOMPLETE - the skipped environments were not tested",
    ]


def test_a_run_with_skips_is_not_called_a_plain_success(dev, tmp_path):
    path = journal(tmp_path, {"py310-core": ok(skipped=True), "py311-core": ok()})
    summary = dev.matrix_summary(dev.read_matrix_result(path), ["3.10"])
    assert "1 of 2 environments ran; all that ran passed" in summary
    assert "INCOMPLETE" in summary


def test_an_environment_without_a_result_counts_as_skipped(dev, tmp_path):
    outcomes = dev.read_matrix_result(journal(tmp_path, {"py311-core": ok(), "discovery": None}))
    assert [(o.name, o.ran) for o in outcomes] == [("discovery", False), ("py311-core", True)]


def test_no_journal_is_said_plainly(dev, tmp_path):
    assert dev.read_matrix_result(tmp_path / "missing.json") == []
    assert dev.matrix_summary([], []) == "tox matrix: tox wrote no result; see its output above\n"


@pytest.mark.parametrize(("ci", "code", "expected"), [("1", 0, 1), ("", 0, 0), ("1", 3, 3)])
def test_skips_fail_the_matrix_under_ci(dev, tmp_path, monkeypatch, ci, code, expected):
    """``matrix()`` with tox and the interpreter lookup replaced: only the exit code is checked."""
    result = journal(tmp_path, {"py310-core": ok(skipped=True), "py311-core": ok()})
    monkeypatch.setattr(dev, "MATRIX_RESULT", tmp_path / "written-by-tox.json")
    monkeypatch.setattr(dev, "build_wheels", lambda: None)
    monkeypatch.setattr(
        dev.shutil, "which", lambda name, path=None: None if "3.10" in name else name
    )

    def fake_run(command, env=None):
        if "run-parallel" in command:
            dev.MATRIX_RESULT.write_text(result.read_text(encoding="utf-8"), encoding="utf-8")
            return code
        return 0

    monkeypatch.setattr(dev, "run", fake_run)
    monkeypatch.setenv("CI", ci)
    if ci:  # CI refuses to start without every Python: pretend 3.10 appeared after the check
        monkeypatch.setattr(dev, "TOX_PYTHONS", ("3.11",))
    assert dev.matrix() == expected


def test_ci_refuses_to_start_the_matrix_without_every_python(dev, monkeypatch):
    calls: list[list[str]] = []
    monkeypatch.setattr(dev, "build_wheels", lambda: None)
    monkeypatch.setattr(
        dev.shutil, "which", lambda name, path=None: None if "3.10" in name else name
    )
    monkeypatch.setattr(dev, "run", lambda command, env=None: calls.append(command) or 0)
    monkeypatch.setenv("CI", "1")
    assert dev.matrix() == 1
    assert not [c for c in calls if "run-parallel" in c]
