"""The steps of ``dev.py test`` and ``dev.py check``: running some beside others, reading what
each came to (tox's result journal, pytest's JUnit report) and the one closing verdict line.

Only the standard library: ``dev.py`` imports this before any virtual environment exists.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ALLOW_INCOMPLETE = "--allow-incomplete"
"""The ``dev.py test`` flag that accepts a matrix run with environments skipped."""


@dataclass(frozen=True)
class StepResult:
    """What one step came to, for the closing verdict.

    ``incomplete`` marks a step that passed but did not cover all it should (matrix
    environments skipped for a missing Python): a failure unless ``--allow-incomplete``.
    """

    name: str
    passed: bool
    detail: str = ""
    incomplete: bool = False


@dataclass(frozen=True)
class Step:
    """A command run beside another step; ``report`` is where a pytest step writes JUnit XML."""

    name: str
    command: list[str]
    report: Path | None = None

    def result(self, code: int) -> StepResult:
        if self.report is None:
            return StepResult(self.name, code == 0)
        return pytest_result(self.name, code, self.report)


def banner(text: str) -> None:
    sys.stdout.write(f"\n== {text}\n")
    sys.stdout.flush()


@contextmanager
def beside(steps: Sequence[Step], *, logs: Path, cwd: Path) -> Iterator[list[StepResult]]:
    """Run ``steps`` in the background while the ``with`` body runs, each one's output kept in
    ``logs/NAME.log``; on leaving, wait for each, show its output under a banner and fill the
    yielded list with their results. Interrupted, the steps still running are stopped."""
    logs.mkdir(parents=True, exist_ok=True)
    running: list[tuple[Step, subprocess.Popen[bytes], IO[bytes], Path]] = []
    results: list[StepResult] = []
    try:
        for step in steps:
            if step.report is not None:
                step.report.unlink(missing_ok=True)
            log = logs / f"{step.name}.log"
            handle = log.open("wb")
            process = subprocess.Popen(step.command, cwd=cwd, stdout=handle, stderr=handle)
            running.append((step, process, handle, log))
            sys.stdout.write(f"{step.name}: runs beside the next step (log: {log})\n")
        yield results
        for step, process, handle, log in running:
            code = process.wait()
            handle.close()
            banner(f"{step.name} (ran beside the step above)")
            sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
            results.append(step.result(code))
    finally:
        for _, process, handle, _ in running:
            if process.poll() is None:
                process.terminate()
                process.wait()
            handle.close()


def pytest_result(name: str, code: int, report: Path) -> StepResult:
    """pytest's outcome from its exit code and its JUnit report: what passed and what not."""
    if code == 5:  # a filter selected no test
        return StepResult(name, passed=True, detail="no test selected")
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return StepResult(name, passed=False, detail=f"exit code {code}, no report")
    suite = root.find("testsuite") if root.tag == "testsuites" else root
    if suite is None:
        return StepResult(name, passed=False, detail=f"exit code {code}, an empty report")
    counts = {key: int(suite.get(key, "0")) for key in ("tests", "failures", "errors", "skipped")}
    passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
    words = [f"{counts['failures']:,} failed"] if counts["failures"] else []
    words += [f"{counts['errors']:,} errors"] if counts["errors"] else []
    words += [f"{passed:,} passed", f"{counts['skipped']:,} skipped"]
    return StepResult(name, passed=code == 0, detail=", ".join(words))


def verdict(
    task: str,
    results: Sequence[StepResult],
    seconds: float,
    *,
    expected: Sequence[str],
    allow_incomplete: bool,
) -> tuple[str, bool]:
    """``dev.py TASK: PASSED|FAILED in 5m12s: step state (detail); ...`` and whether it passed.

    A step of ``expected`` with no result (an earlier one failed first) is named as not run.
    """
    ran = {r.name for r in results}
    not_run = [name for name in expected if name not in ran]
    parts = []
    for r in results:
        if not r.passed:
            state = "FAILED"
        elif r.incomplete:
            state = "accepted incomplete" if allow_incomplete else "INCOMPLETE"
        else:
            state = "passed"
        parts.append(f"{r.name} {state}" + (f" ({r.detail})" if r.detail else ""))
    if not_run:
        parts.append(f"not run: {', '.join(not_run)}")
    incomplete = any(r.incomplete for r in results) and not allow_incomplete
    if incomplete:
        parts.append(f"{ALLOW_INCOMPLETE} accepts skipped environments")
    passed = all(r.passed for r in results) and not not_run and not incomplete
    minutes, secs = divmod(round(seconds), 60)
    outcome = "PASSED" if passed else "FAILED"
    return f"dev.py {task}: {outcome} in {minutes}m{secs:02d}s: {'; '.join(parts)}", passed


# -- the tox matrix ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvOutcome:
    """One tox environment of a matrix run: whether it ran (not skipped) and passed."""

    name: str
    ran: bool
    passed: bool


def read_matrix_result(path: Path) -> list[EnvOutcome]:
    """The environments of tox's ``--result-json`` journal; none if tox wrote no journal.

    An environment without a result never ran (tox was interrupted first): it counts as
    skipped, like one whose interpreter is missing.
    """
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    outcomes = []
    for name, entry in sorted(journal.get("testenvs", {}).items()):
        result = entry.get("result") if isinstance(entry, dict) else None
        if not isinstance(result, dict) or result.get("skipped", False):
            outcomes.append(EnvOutcome(name, ran=False, passed=False))
        else:
            outcomes.append(EnvOutcome(name, ran=True, passed=bool(result.get("success"))))
    return outcomes


def matrix_summary(outcomes: Sequence[EnvOutcome], missing: Sequence[str]) -> str:
    """What the matrix covered, said plainly after tox's own report (which calls a run with
    skipped environments a success)."""
    if not outcomes:
        return "tox matrix: tox wrote no result; see its output above\n"
    ran = [o for o in outcomes if o.ran]
    failed = [o.name for o in ran if not o.passed]
    skipped = [o.name for o in outcomes if not o.ran]
    if failed:
        said = f"{len(failed)} failed ({', '.join(failed)})"
    elif not ran:
        said = "nothing was tested"
    else:
        said = "all that ran passed" if skipped else "all passed"
    lines = [f"tox matrix: {len(ran)} of {len(outcomes)} environments ran; {said}"]
    if skipped:
        why = f" (Python {', '.join(missing)} not found)" if missing else ""
        lines.append(f"tox matrix: {len(skipped)} skipped: {', '.join(skipped)}{why}")
        lines.append("tox matrix: INCOMPLETE - the skipped environments were not tested")
    return "\n".join(lines) + "\n"


def matrix_result(code: int, outcomes: Sequence[EnvOutcome], missing: Sequence[str]) -> StepResult:
    """The matrix as a step of the verdict: failed if tox failed or nothing ran, incomplete if
    an environment was skipped."""
    ran = [o for o in outcomes if o.ran]
    failed = [o.name for o in ran if not o.passed]
    skipped = [o.name for o in outcomes if not o.ran]
    detail = f"{len(ran)} of {len(outcomes)} environments ran"
    if failed:
        detail += f"; failed: {', '.join(failed)}"
    if skipped:
        why = f", Python {', '.join(missing)} not found" if missing else ""
        detail += f"; {len(skipped)} skipped{why}"
    passed = code == 0 and bool(ran) and not failed
    return StepResult("tox matrix", passed, detail, incomplete=bool(skipped))
