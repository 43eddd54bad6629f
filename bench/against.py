#!/usr/bin/env python3
"""This checkout against a past commit, side by side on this machine.

    python3 bench/against.py REV                     # the provider measures, 5 rounds
    python3 bench/against.py REV --only offline_run,e2e_google --rounds 7 --quick

A published run and today's come from different machines (the loopback server, the SDKs'
own costs and the CPU all move), so "no slower than the run of date D" is only a question this
machine can answer: it runs affordance as it was at ``REV`` and as it is in this checkout
(working tree included), through the same measure scripts, in the same bench venv, rounds
alternating which goes first. The tree of ``REV`` is exported (``git archive``) to
``.bench/trees/<commit>`` and put first on ``PYTHONPATH``, as is this checkout's; the raw SDK
reference of each provider measure runs once per round, so each row shows both trees' share
of it. The venv's entry points are this checkout's: a past tree whose plugin modules were
named otherwise fails, and the failure is printed. It prints one markdown table per measure
(medians over rounds, this checkout / ``REV``) and writes nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from _environment import ensure_environment, find_interpreter, last_line, progress, run_command
from _plan import MEASURES_DIR, ROOT, VENVS

PROVIDER_MEASURES = ("e2e_openai", "stream_openai", "e2e_anthropic", "e2e_google")
RAW = {
    "e2e_openai": "openai-sdk-raw",
    "stream_openai": "openai-sdk-raw",
    "e2e_anthropic": "anthropic-sdk-raw",
    "e2e_google": "google-sdk-raw",
}
"""Each provider measure's fastest hand-written path: the reference a row's share is of."""
TREES = VENVS / "trees"


def export(revision: str) -> tuple[str, Path]:
    """The commit ``revision`` names, and its ``core``, ``plugins`` and ``testing`` exported
    (once) under ``.bench/trees``."""
    done = run_command(["git", "rev-parse", "--verify", f"{revision}^{{commit}}"], cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"against: no commit {revision!r} ({last_line(done.stderr)})")
    commit = done.stdout.strip()
    tree = TREES / commit
    if not (tree / "core").is_dir():
        TREES.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=TREES) as scratch:
            archive = Path(scratch) / "tree.tar"
            paths = [p for p in ("core", "plugins", "testing") if _in(commit, p)]
            done = run_command(
                ["git", "archive", "--format=tar", f"--output={archive}", commit, *paths],
                cwd=ROOT,
            )
            if done.returncode != 0:
                raise SystemExit(f"against: git archive failed ({last_line(done.stderr)})")
            unpacked = Path(scratch) / "tree"
            with tarfile.open(archive) as tar:
                if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.10.12 / 3.11.4 on
                    tar.extractall(unpacked, filter="data")
                else:  # our own commit's files: nothing to guard against
                    tar.extractall(unpacked)
            unpacked.rename(tree)
    return commit, tree


def _in(commit: str, path: str) -> bool:
    done = run_command(["git", "cat-file", "-e", f"{commit}:{path}"], cwd=ROOT)
    return done.returncode == 0


def python_path(tree: Path) -> str:
    """The source folders of a tree's distributions, core first."""
    sources = [tree / "core" / "src", *sorted((tree / "plugins").glob("*/src"))]
    sources += [tree / "testing" / "src"] if (tree / "testing" / "src").is_dir() else []
    return os.pathsep.join(str(source) for source in sources)


def run_job(
    python: Path, measure: str, framework: str, path: str | None, quick: bool
) -> dict[str, Any]:
    """One measure's JSON record for ``framework``, with ``path`` first on ``PYTHONPATH``."""
    command: list[str | Path] = [python, MEASURES_DIR / f"{measure}.py"]
    command += ["--framework", framework, "--json", *(["--quick"] if quick else [])]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    if path is not None:
        env["PYTHONPATH"] = path
    done = run_command(command, cwd=ROOT, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"status": "error", "reason": last_line(done.stderr)}
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def compare(
    python: Path, measures: list[str], rounds: int, quick: bool, past: tuple[str, Path]
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """``{measure: {row: {"past"|"now"|"raw": [values]}}}``, rounds alternating the order."""
    trees = {"past": python_path(past[1]), "now": python_path(ROOT)}
    values: dict[str, dict[str, dict[str, list[float]]]] = {}
    for index in range(rounds):
        order = ["past", "now"] if index % 2 == 0 else ["now", "past"]
        for measure in measures:
            jobs: list[tuple[str, str, str | None]] = [
                (side, "affordance", trees[side]) for side in order
            ]
            if measure in RAW:
                jobs.append(("raw", RAW[measure], None))
            for side, framework, path in jobs:
                record = run_job(python, measure, framework, path, quick)
                if record.get("status") != "ok":
                    progress(f"{measure} {side}: {record.get('status')}: {record.get('reason')}")
                    continue
                for metric in record["metrics"]:
                    row = values.setdefault(measure, {}).setdefault(metric["label"], {})
                    row.setdefault(side, []).append(metric["value"])
            progress(f"round {index + 1}/{rounds}: {measure} done")
    return values


def table(measure: str, rows: dict[str, dict[str, list[float]]], commit: str) -> str:
    short = commit[:7]
    lines = [
        f"### {measure}",
        "",
        f"| row | {short} | this checkout | this / {short} | share of raw SDK, {short} → now |",
        "|---|---|---|---|---|",
    ]
    for label, sides in rows.items():
        if "past" not in sides or "now" not in sides:
            continue
        past, now = statistics.median(sides["past"]), statistics.median(sides["now"])
        share = ""
        if sides.get("raw"):
            raw = statistics.median(sides["raw"])
            share = f"{past / raw:.1%} → {now / raw:.1%}"
        lines.append(f"| {label} | {past:.4g} | {now:.4g} | {now / past:.3f} | {share} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("revision", help="the commit to compare with (any git revision)")
    parser.add_argument("--only", help="comma-separated measures (default: the provider ones)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per measure (default 5)")
    parser.add_argument("--quick", action="store_true", help="the measures' shorter loops")
    parser.add_argument("--python", help="the Python (>= 3.13) to build the bench venv with")
    args = parser.parse_args()
    measures = args.only.split(",") if args.only else list(PROVIDER_MEASURES)
    unknown = [m for m in measures if not (MEASURES_DIR / f"{m}.py").is_file()]
    if unknown:
        parser.error(f"no measure {', '.join(unknown)} in {MEASURES_DIR.relative_to(ROOT)}")
    past = export(args.revision)
    interpreter, version = find_interpreter(args.python)
    environment = ensure_environment(interpreter, version, rebuild=False)
    values = compare(environment.python, measures, args.rounds, args.quick, past)
    heading = (
        f"## This checkout against {past[0][:7]} on this machine "
        f"({args.rounds} rounds{', quick' if args.quick else ''}; medians)"
    )
    print("\n\n".join([heading, *(table(m, values[m], past[0]) for m in values)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
