"""``dev.py``'s steps and verdict: a run with skipped environments never reads as a plain
success, and the last line says what ran, what was skipped, and whether it passed."""

from __future__ import annotations

import importlib.util
import json
import subprocess
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


JUNIT_SAMPLE = """
import pytest

def test_passes():
    pass

def test_fails():
    assert False

@pytest.mark.skip(reason="sample")
def test_skipped():
    pass
"""


def test_a_pytest_step_is_read_from_its_junit_report(dev, tmp_path):
    """A real pytest run's report: one passed, one failed, one skipped."""
    (tmp_path / "test_sample.py").write_text(JUNIT_SAMPLE, encoding="utf-8")
    report = tmp_path / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--junit-xml={report}", "-o", "addopts=", str(tmp_path / "test_sample.py")]
    code = subprocess.run(command, cwd=tmp_path, capture_output=True, check=False).returncode
    result = dev.pytest_result("pytest", code, report)
    assert (result.passed, result.detail) == (False, "1 failed, 1 passed, 1 skipped")


def test_a_pytest_step_without_a_report_fails_saying_so(dev, tmp_path):
    result = dev.pytest_result("pytest", 4, tmp_path / "none.xml")
    assert (result.passed, result.detail) == (False, "exit code 4, no report")
    assert dev.pytest_result("pytest", 5, tmp_path / "none.xml").passed  # nothing selected


def test_the_verdict_names_every_step_and_passes_only_when_all_did(dev):
    steps = ["ruff", "import layers", "mypy", "tox matrix", "pytest"]
    results = [dev.StepResult(name, True) for name in steps[:3]]
    results.append(dev.StepResult("tox matrix", True, "24 of 24 environments ran"))
    results.append(dev.StepResult("pytest", True, "2,800 passed, 18 skipped"))
    line, passed = dev.verdict("test", results, 312.4, expected=steps, allow_incomplete=False)
    assert passed
    assert line == (
        "dev.py test: PASSED in 5m12s: ruff passed; import layers passed; mypy passed; "
        "tox matrix passed (24 of 24 environments ran); pytest passed (2,800 passed, 18 skipped)"
    )
    failed = [*results[:4], dev.StepResult("pytest", False, "1 failed, 2,799 passed, 18 skipped")]
    line, passed = dev.verdict("test", failed, 61, expected=steps, allow_incomplete=False)
    assert not passed
    assert line.startswith("dev.py test: FAILED in 1m01s: ")
    assert line.endswith("pytest FAILED (1 failed, 2,799 passed, 18 skipped)")


def test_a_step_that_never_ran_fails_the_verdict_by_name(dev):
    results = [dev.StepResult("ruff", False)]
    line, passed = dev.verdict(
        "check",
        results,
        3,
        expected=["ruff", "import layers", "mypy", "pytest"],
        allow_incomplete=False,
    )
    assert not passed
    assert (
        line == "dev.py check: FAILED in 0m03s: ruff FAILED; not run: import layers, mypy, pytest"
    )


def skipping_matrix(dev, tmp_path, monkeypatch, *, code=0):
    """``dev.py test`` on a machine without Python 3.10: lint and the packaging are set aside,
    tox is replaced by its journal (py310-core skipped), mypy and pytest are real commands."""
    journal_path = journal(tmp_path, {"py310-core": ok(skipped=True), "py311-core": ok()})
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    report = tmp_path / "pytest.xml"
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    pytest_command += ["-o", "addopts=", f"--junit-xml={report}", str(tmp_path / "test_one.py")]
    monkeypatch.setattr(dev, "ensure_venv", lambda full: None)
    monkeypatch.setattr(dev, "build_distributions", list)
    monkeypatch.setattr(dev, "build_samples", lambda: None)
    monkeypatch.setattr(dev, "LOGS", tmp_path / "logs")
    monkeypatch.setattr(dev, "MATRIX_RESULT", tmp_path / "written-by-tox.json")
    monkeypatch.setattr(
        dev, "lint", lambda: [dev.StepResult("ruff", True), dev.StepResult("import layers", True)]
    )
    monkeypatch.setattr(
        dev, "typecheck_step", lambda: dev.Step("mypy", [sys.executable, "-c", "pass"])
    )
    monkeypatch.setattr(dev, "pytest_step", lambda rest: dev.Step("pytest", pytest_command, report))
    monkeypatch.setattr(
        dev.shutil, "which", lambda name, path=None: None if "3.10" in name else name
    )

    def fake_run(command, env=None, **kwargs):
        if "run-parallel" in command:
            assert "--skip-missing-interpreters=true" in command
            dev.MATRIX_RESULT.write_text(journal_path.read_text(encoding="utf-8"), encoding="utf-8")
            return code
        return 0

    monkeypatch.setattr(dev, "run", fake_run)


def test_a_skipped_matrix_environment_fails_the_test_command_with_the_verdict_last(
    dev, tmp_path, monkeypatch, capsys
):
    skipping_matrix(dev, tmp_path, monkeypatch)
    assert dev.main(["test"]) == 1
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("dev.py test: FAILED in ")
    assert (
        "tox matrix INCOMPLETE (1 of 2 environments ran; 1 skipped, Python 3.10 not found)" in last
    )
    assert "pytest passed (1 passed, 0 skipped)" in last
    assert last.endswith("--allow-incomplete accepts skipped environments")


def test_allow_incomplete_accepts_the_skipped_environments_and_says_so(
    dev, tmp_path, monkeypatch, capsys
):
    skipping_matrix(dev, tmp_path, monkeypatch)
    assert dev.main(["test", "--allow-incomplete"]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("dev.py test: PASSED in ")
    assert "tox matrix accepted incomplete (1 of 2 environments ran" in last


def test_a_failing_matrix_fails_even_when_incomplete_is_allowed(dev, tmp_path, monkeypatch, capsys):
    skipping_matrix(dev, tmp_path, monkeypatch, code=1)
    assert dev.main(["test", "--allow-incomplete"]) == 1
    assert "tox matrix FAILED" in capsys.readouterr().out.rstrip().splitlines()[-1]
