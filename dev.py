#!/usr/bin/env python3
"""Developer entry point: sets up .venv with only python3 and pip, then runs the task.

    python3 dev.py demo    the offline demo (installs just the core)
    python3 dev.py test    the full suite: lint, types, the tox matrix and every test; ends with
                           one verdict line, and fails when a matrix environment was skipped
                           (a Python missing) unless given --allow-incomplete
    python3 dev.py check   the quick loop: lint (ruff, import layers), types, every test
    python3 dev.py dist    wheels and sdists of every distribution into dist/, twine-checked
    python3 dev.py compat  run the tox matrix, then regenerate specs/COMPATIBILITY.md from it
    python3 dev.py faults  regenerate the fault matrix of specs/RELIABILITY.md from its tests' data
    python3 dev.py bench   a full benchmark run, published: bench/published.json and the README's
                           performance section regenerated from it (about 8 minutes)
    python3 dev.py setup   create or refresh .venv only

The virtual environment is refreshed whenever a pyproject.toml or requirements-dev.txt
changes. Everything after the task name is passed to the tool it runs (pytest for test/check).
In `test`, the main pytest run and mypy run beside the tox matrix (their output is kept in
.tox/logs and shown when each ends): the machine's cores are busy, not waiting on one step.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "ci"))

from dev_steps import (  # noqa: E402 - ci/ holds the steps; on the path from here on
    ALLOW_INCOMPLETE,
    Step,
    StepResult,
    banner,
    beside,
    matrix_result,
    matrix_summary,
    pytest_result,
    read_matrix_result,
    verdict,
)

VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
STAMP = VENV / ".affordance-setup"
DIST = ROOT / "dist"
SAMPLES = DIST / "samples"
LOGS = ROOT / ".tox" / "logs"
MATRIX_RESULT = ROOT / ".tox" / "matrix-result.json"
PYTEST_REPORT = LOGS / "pytest.xml"
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
        "dist": dist,
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
    sys.stdout.write(
        "\n.venv is ready. Next:\n"
        "  python3 dev.py demo     the offline demo\n"
        "  python3 dev.py check    the quick loop: lint, types, every test\n"
        "  python3 dev.py test     everything, the tox matrix included (what CI runs)\n"
    )
    return 0


def check(rest: list[str]) -> int:
    """Lint, then mypy beside pytest (pytest's output live, mypy's shown when it ends)."""
    started = time.monotonic()
    ensure_venv(full=True)
    results = lint()
    if all(r.passed for r in results):
        with beside([typecheck_step()], logs=LOGS, cwd=ROOT) as others:
            results.append(pytest(rest, report=PYTEST_REPORT))
        results[-1:-1] = others
    return conclude("check", results, started, allow_incomplete=False)


def test(rest: list[str]) -> int:
    """Lint; then the tox matrix, with mypy and the main pytest run beside it."""
    started = time.monotonic()
    allow_incomplete = ALLOW_INCOMPLETE in rest
    rest = [arg for arg in rest if arg != ALLOW_INCOMPLETE]
    ensure_venv(full=True)
    results = lint()
    if all(r.passed for r in results):
        steps = [typecheck_step(), pytest_step(rest)]
        with beside(steps, logs=LOGS, cwd=ROOT) as others:
            results.append(matrix())
        results += others
    return conclude("test", results, started, allow_incomplete=allow_incomplete)


def dist(rest: list[str]) -> int:
    """A wheel and an sdist of every distribution of the workspace into dist/, twine-checked."""
    ensure_venv(full=True)
    built = build_distributions()
    sys.stdout.write("".join(f"  {path.relative_to(ROOT)}\n" for path in built))
    return 0


def bench(rest: list[str]) -> int:
    """A full bench run that publishes its figures (README performance section)."""
    ensure_venv(full=True)
    return run([str(PYTHON), str(ROOT / "bench" / "run.py"), "--publish", *rest])


def compat(rest: list[str]) -> int:
    """The matrix, then specs/COMPATIBILITY.md written from its results (never by hand)."""
    ensure_venv(full=True)
    result = matrix()
    written = run([str(PYTHON), str(ROOT / "ci" / "compat.py")])
    return written or (0 if result.passed else 1)


def faults(rest: list[str]) -> int:
    """The fault matrix of specs/RELIABILITY.md, written from the rows the contract runs."""
    ensure_venv(full=True)
    return run([str(PYTHON), str(ROOT / "ci" / "fault_matrix.py")])


# -- steps -------------------------------------------------------------------------------------


def lint() -> list[StepResult]:
    banner("ruff")
    ruff = run([str(BIN / "ruff"), "check", "."]) or run(
        [str(BIN / "ruff"), "format", "--check", "."]
    )
    results = [StepResult("ruff", ruff == 0)]
    if ruff == 0:
        banner("import layers (lint-imports)")
        results.append(StepResult("import layers", run([str(BIN / "lint-imports")]) == 0))
    return results


def typecheck_step() -> Step:
    return Step("mypy", [str(BIN / "mypy")])


def pytest_command(rest: Sequence[str], report: Path) -> list[str]:
    return [
        *(str(PYTHON), "-m", "pytest", "-q", "-p", "no:cacheprovider"),
        f"--junit-xml={report}",
        *rest,
    ]


def pytest_step(rest: Sequence[str]) -> Step:
    return Step("pytest", pytest_command(rest, PYTEST_REPORT), report=PYTEST_REPORT)


def pytest(rest: Sequence[str], *, report: Path) -> StepResult:
    banner("pytest")
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)
    return pytest_result("pytest", run(pytest_command(rest, report)), report)


def conclude(
    task: str, results: Sequence[StepResult], started: float, *, allow_incomplete: bool
) -> int:
    """Print the one closing verdict line; the exit code that goes with it."""
    expected = ["ruff", "import layers", "mypy", *(["tox matrix"] if task == "test" else [])]
    line, passed = verdict(
        task,
        results,
        time.monotonic() - started,
        expected=[*expected, "pytest"],
        allow_incomplete=allow_incomplete,
    )
    banner("verdict")
    sys.stdout.write(line + "\n")
    return 0 if passed else 1


def matrix() -> StepResult:
    """The tox matrix: every Python the machine has, core and each plugin's SDK floor/latest."""
    banner("tox matrix")
    build_distributions()
    build_samples()
    env = dict(os.environ)
    # pyenv exposes a python3.X command only for the versions listed here (all of them).
    env["PYENV_VERSION"] = ":".join(PYENV_PYTHONS)
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env["UV_FIND_LINKS"] = f"{DIST},{SAMPLES}"
    missing = [v for v in TOX_PYTHONS if shutil.which(f"python{v}", path=env.get("PATH")) is None]
    # The workspace wheels keep their version between builds: drop them from uv's cache and
    # recreate the envs, so every run tests the code as it is now.
    wheels = [*DIST.glob("*.whl"), *SAMPLES.glob("*.whl")]
    names = [wheel.name.split("-")[0] for wheel in wheels]
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
    return matrix_result(code, outcomes, missing)


# -- environment -------------------------------------------------------------------------------


def workspace_distributions() -> list[Path]:
    """core/ first, then affordance-testing (testing/), every plugin under plugins/, then every
    app under examples/."""
    plugins = sorted(p.parent for p in (ROOT / "plugins").glob("*/pyproject.toml"))
    examples = sorted(p.parent for p in (ROOT / "examples").glob("*/pyproject.toml"))
    return [ROOT / "core", ROOT / "testing", *plugins, *examples]


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


def build_distributions() -> list[Path]:
    """A wheel and an sdist of every workspace distribution into dist/ (what was there
    before is replaced), checked with ``twine check --strict``; the files built."""
    for old in (*DIST.glob("*.whl"), *DIST.glob("*.tar.gz")):
        old.unlink()
    DIST.mkdir(exist_ok=True)
    for project in workspace_distributions():
        build = [str(PYTHON), "-m", "hatchling", "build", "-t", "wheel", "-t", "sdist"]
        if run([*build, "-d", str(DIST)], cwd=project, quiet=True):
            raise SystemExit(f"building {project.relative_to(ROOT)} failed")
    built = sorted((*DIST.glob("*.whl"), *DIST.glob("*.tar.gz")))
    if run([str(BIN / "twine"), "check", "--strict", *map(str, built)], quiet=True):
        raise SystemExit("twine check failed on the distributions above")
    return built


def build_samples() -> None:
    """Wheels of the sample third-party plugins (tests/fixtures/plugins) into dist/samples,
    for the matrix's discovery env: real metadata, real entry points."""
    shutil.rmtree(SAMPLES, ignore_errors=True)
    SAMPLES.mkdir(parents=True)
    command = [str(PYTHON), "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
    samples = sorted(p.parent for p in (ROOT / "tests/fixtures/plugins").glob("*/pyproject.toml"))
    if run([*command, "--wheel-dir", str(SAMPLES), *map(str, samples)]):
        raise SystemExit("building the sample plugins' wheels failed")


def run(
    command: list[str],
    env: dict[str, str] | None = None,
    *,
    cwd: Path = ROOT,
    quiet: bool = False,
) -> int:
    """Run ``command``; ``quiet`` shows its output only if it fails."""
    if not quiet:
        return subprocess.call(command, cwd=cwd, env=env)
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    if done.returncode:
        sys.stdout.buffer.write(done.stdout + done.stderr)
        sys.stdout.flush()
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
