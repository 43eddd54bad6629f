#!/usr/bin/env python3
"""Developer entry point: sets up .venv with only python3 and pip, then runs the task.

    python3 dev.py demo    the offline demo (installs just the core)
    python3 dev.py test    the full suite: lint, types, the tox matrix, then every test
    python3 dev.py check   the quick loop: lint (ruff, import layers), types, every test
    python3 dev.py compat  run the tox matrix, then regenerate specs/COMPATIBILITY.md from it
    python3 dev.py faults  regenerate the fault matrix of specs/RELIABILITY.md from its tests' data
    python3 dev.py bench   a full benchmark run, published: bench/published.json and the README's
                           performance section regenerated from it (about 8 minutes)
    python3 dev.py setup   create or refresh .venv only

The virtual environment is refreshed whenever a pyproject.toml or requirements-dev.txt
changes. Everything after the task name is passed to the tool it runs (pytest for test/check).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".affordance-setup"
WHEELS = ROOT / "dist" / "wheels"
MATRIX_RESULT = ROOT / ".tox" / "matrix-result.json"
PYENV_PYTHONS = ("3.11.7", "3.10.13", "3.12.1", "3.13.0")
TOX_PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 10):  # noqa: UP036 - this file must run on any python3 to say so
        sys.stderr.write("affordance needs Python 3.10 or newer\n")
        return 2
    task, rest = (argv[0], argv[1:]) if argv else ("help", [])
    tasks = {
        "demo": demo,
        "test": test,
        "check": check,
        "compat": compat,
        "faults": faults,
        "bench": bench,
        "setup": setup_only,
    }
    if task not in tasks:
        sys.stdout.write(__doc__ or "")
        return 0 if task == "help" else 2
    return tasks[task](rest)


# -- tasks -------------------------------------------------------------------------------------


def demo(rest: list[str]) -> int:
    ensure_venv(full=False)
    return run([str(BIN / "affordance"), "demo", *rest])


def setup_only(rest: list[str]) -> int:
    ensure_venv(full=True)
    return 0


def check(rest: list[str]) -> int:
    ensure_venv(full=True)
    for step in (lint, typecheck):
        if code := step():
            return code
    return pytest(rest)


def test(rest: list[str]) -> int:
    ensure_venv(full=True)
    for step in (lint, typecheck, matrix):
        if code := step():
            return code
    return pytest(rest)


def bench(rest: list[str]) -> int:
    """A full bench run that publishes its figures (README performance section)."""
    ensure_venv(full=True)
    return run([str(PYTHON), str(ROOT / "bench" / "run.py"), "--publish", *rest])


def compat(rest: list[str]) -> int:
    """The matrix, then specs/COMPATIBILITY.md written from its results (never by hand)."""
    ensure_venv(full=True)
    code = matrix()
    written = run([str(PYTHON), str(ROOT / "ci" / "compat.py")])
    return code or written


def faults(rest: list[str]) -> int:
    """The fault matrix of specs/RELIABILITY.md, written from the rows the contract runs."""
    ensure_venv(full=True)
    return run([str(PYTHON), str(ROOT / "ci" / "fault_matrix.py")])


def lint() -> int:
    banner("ruff")
    code = run([str(BIN / "ruff"), "check", "."]) or run(
        [str(BIN / "ruff"), "format", "--check", "."]
    )
    if code:
        return code
    banner("import layers (lint-imports)")
    return run([str(BIN / "lint-imports")])


def typecheck() -> int:
    banner("mypy (strict)")
    return run([str(BIN / "mypy")])


def pytest(rest: list[str]) -> int:
    banner("pytest")
    code = run([str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider", *rest])
    return 0 if code == 5 and rest else code  # 5: a filter selected no test


def matrix() -> int:
    """The tox matrix: every Python the machine has, core and each plugin's SDK floor/latest."""
    banner("tox matrix")
    build_wheels()
    env = dict(os.environ)
    # pyenv exposes a python3.X command only for the versions listed here (all of them).
    env["PYENV_VERSION"] = ":".join(PYENV_PYTHONS)
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env["UV_FIND_LINKS"] = str(WHEELS)
    missing = [v for v in TOX_PYTHONS if shutil.which(f"python{v}", path=env.get("PATH")) is None]
    if missing and env.get("CI"):
        sys.stderr.write(f"CI needs Python {', '.join(missing)} for the matrix\n")
        return 1
    # The workspace wheels keep their version between builds: drop them from uv's cache and
    # recreate the envs, so every run tests the code as it is now.
    names = [wheel.name.split("-")[0] for wheel in WHEELS.glob("*.whl")]
    run([str(BIN / "uv"), "cache", "clean", "--quiet", *names], env=env)
    command = [str(BIN / "tox"), "run-parallel", "--recreate", "--parallel", "2"]
    command += ["--parallel-no-spinner", "--result-json", str(MATRIX_RESULT)]
    if missing:
        sys.stdout.write(f"note: Python {', '.join(missing)} not found; their envs are skipped\n")
        command.append("--skip-missing-interpreters=true")
    MATRIX_RESULT.parent.mkdir(exist_ok=True)
    MATRIX_RESULT.unlink(missing_ok=True)
    code = run(command, env=env)
    outcomes = read_matrix_result(MATRIX_RESULT)
    sys.stdout.write(matrix_summary(outcomes, missing))
    if code == 0 and env.get("CI") and (not outcomes or any(not o.ran for o in outcomes)):
        return 1  # tox calls a run with skipped envs a success; CI needs every one of them
    return code


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
        verdict = f"{len(failed)} failed ({', '.join(failed)})"
    elif not ran:
        verdict = "nothing was tested"
    else:
        verdict = "all that ran passed" if skipped else "all passed"
    lines = [f"tox matrix: {len(ran)} of {len(outcomes)} environments ran; {verdict}"]
    if skipped:
        why = f" (Python {', '.join(missing)} not found)" if missing else ""
        lines.append(f"tox matrix: {len(skipped)} skipped: {', '.join(skipped)}{why}")
        lines.append("tox matrix: INCOMPLETE - the skipped environments were not tested")
    return "\n".join(lines) + "\n"


# -- environment -------------------------------------------------------------------------------


def workspace_distributions() -> list[Path]:
    """core/ first, then every plugin under plugins/, then every app under examples/."""
    plugins = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
    examples = sorted(p.parent for p in (ROOT / "examples").glob("*/pyproject.toml"))
    return [ROOT / "core", *plugins, *examples]


def fingerprint(full: bool) -> str:
    digest = hashlib.sha256(f"{sys.version}|{full}".encode())
    files = [
        ROOT / "requirements-dev.txt",
        *(d / "pyproject.toml" for d in workspace_distributions()),
    ]
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_venv(*, full: bool) -> None:
    """Create .venv if needed and install the workspace (editable) plus the dev tools."""
    if STAMP.exists():
        recorded = STAMP.read_text().split()
        if fingerprint(full=True) in recorded or (not full and fingerprint(full=False) in recorded):
            return
    if not PYTHON.exists():
        banner(f"creating {VENV.relative_to(ROOT)}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    banner("installing" + (" the workspace and dev tools" if full else " the core"))
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    targets = workspace_distributions() if full else [ROOT / "core"]
    editable = [arg for path in targets for arg in ("-e", str(path))]
    extra = ["-r", str(ROOT / "requirements-dev.txt")] if full else []
    if run([*pip, *editable, *extra]):
        raise SystemExit("installing into .venv failed; see the pip output above")
    STAMP.write_text(fingerprint(full) + "\n")


def build_wheels() -> None:
    """Wheels of the workspace and of the sample third-party plugins (tests/fixtures/plugins)
    for tox to install: real metadata, real entry points."""
    shutil.rmtree(WHEELS, ignore_errors=True)
    WHEELS.mkdir(parents=True)
    command = [str(PYTHON), "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    samples = sorted(p.parent for p in (ROOT / "tests/fixtures/plugins").glob("*/pyproject.toml"))
    paths = [str(p) for p in (*workspace_distributions(), *samples)]
    if run([*command, "--wheel-dir", str(WHEELS), *paths]):
        raise SystemExit("building the workspace wheels failed")


def run(command: list[str], env: dict[str, str] | None = None) -> int:
    return subprocess.call(command, cwd=ROOT, env=env)


def banner(text: str) -> None:
    sys.stdout.write(f"\n== {text}\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
