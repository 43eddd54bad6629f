#!/usr/bin/env python3
"""Benchmarks of affordance side by side with its peers, in one run.

    python3 bench/run.py            # every measure, the default number of rounds
    python3 bench/run.py --quick    # fewer rounds and shorter loops, 200-run bursts only
    python3 bench/run.py --only render,offline_run --rounds 3

It builds (or reuses) a virtual environment under ``.bench/`` with the pinned peers of
``bench/requirements-peers.txt`` and this checkout's ``core`` (and ``plugins/openai`` when
present) on Python 3.13, then runs each measure of ``bench/measures/`` in a fresh process per
framework, rounds interleaved between frameworks (and rotated) so drift hits all alike. It
prints one markdown table per measure (medians over rounds, affordance's ratio to the
reference, the goals with pass/fail marks) and writes markdown and JSON to ``bench/results/``.
Only the standard library is needed to start it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _environment import ensure_environment, find_interpreter, last_line, progress, run_command
from _plan import (
    FRAMEWORK_ORDER,
    GOALS,
    MEASURES_DIR,
    PLANS,
    ROOT,
    STRETCH,
    Cell,
    MeasurePlan,
    MeasureResult,
)
from _report import evaluate_goal, git_info, machine_info, report, write_results

# -- running the measures --------------------------------------------------------------------


def jobs_for(
    plan: MeasurePlan, quick: bool, frameworks: set[str] | None
) -> list[tuple[str, tuple[str, ...]]]:
    module = importlib.import_module(plan.module)
    jobs = [(framework, tuple(variant)) for framework, variant in module.JOBS]
    if quick and plan.quick_jobs is not None:
        jobs = [job for job in jobs if plan.quick_jobs in job[1]]
    if frameworks is not None:
        jobs = [job for job in jobs if job[0] in frameworks]
    return jobs


def run_measure(
    plan: MeasurePlan,
    python: Path,
    rounds: int,
    quick: bool,
    frameworks: set[str] | None,
) -> MeasureResult:
    started = time.perf_counter()
    jobs = jobs_for(plan, quick, frameworks)
    order = [f for f in FRAMEWORK_ORDER if any(job[0] == f for job in jobs)]
    result = MeasureResult(plan, rounds, order)
    script = MEASURES_DIR / f"{plan.module}.py"
    for round_index in range(rounds):
        shift = round_index % len(jobs) if jobs else 0
        for framework, variant in jobs[shift:] + jobs[:shift]:
            command = [python, script, "--framework", framework, "--json", *variant]
            if quick:
                command.append("--quick")
            job_started = time.perf_counter()
            record = _run_job(command, plan.timeout_s, plan.module, framework, variant)
            record["round"] = round_index + 1
            record["seconds"] = round(time.perf_counter() - job_started, 2)
            result.records.append(record)
            status = record.get("status")
            progress(
                f"{plan.module} round {round_index + 1}/{rounds}: "
                f"{framework} {' '.join(variant)} -> {status} ({record['seconds']:.1f} s)"
            )
            if status != "ok":
                reason = f"{status}: {record.get('reason', '')}"
                if variant:
                    reason = f"{' '.join(variant)}: {reason}"
                problems = result.problems.setdefault(framework, [])
                if reason not in problems:
                    problems.append(reason)
                continue
            for metric in record["metrics"]:
                result.rows.setdefault(metric["key"], (metric["label"], metric["unit"]))
                result.cells.setdefault((metric["key"], framework), Cell()).values.append(
                    metric["value"]
                )
    result.seconds = time.perf_counter() - started
    return result


def _run_job(
    command: list[Any], timeout_s: float, measure: str, framework: str, variant: Sequence[str]
) -> dict[str, Any]:
    base = {"measure": measure, "framework": framework, "variant": list(variant)}
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    try:
        done = run_command(command, timeout=timeout_s, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return {**base, "status": "timeout", "reason": f"no answer within {timeout_s:.0f} s"}
    lines = [line for line in done.stdout.strip().splitlines() if line.startswith("{")]
    if not lines:
        return {**base, "status": "error", "reason": last_line(done.stderr)}
    return json.loads(lines[-1])  # type: ignore[no-any-return]


# -- command line ----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter loops")
    parser.add_argument("--rounds", type=int, help="rounds for every measure (overrides the plan)")
    parser.add_argument(
        "--only", help="comma-separated measures: " + ",".join(p.module for p in PLANS)
    )
    parser.add_argument("--frameworks", help="comma-separated frameworks to run")
    parser.add_argument("--python", help="the Python (>= 3.13) to build the bench venv with")
    parser.add_argument("--rebuild", action="store_true", help="recreate the bench venv")
    parser.add_argument("--no-write", action="store_true", help="print only; write no results")
    parser.add_argument(
        "--publish",
        action="store_true",
        help="a full run of every measure: also write bench/published.json and regenerate the "
        "README's performance section from it",
    )
    args = parser.parse_args(argv)
    if args.publish and (
        args.quick or args.only or args.frameworks or args.rounds or args.no_write
    ):
        parser.error("--publish publishes a full run of everything: no other options")

    began = time.perf_counter()
    started = datetime.datetime.now().astimezone()
    plans = list(PLANS)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {p.module for p in PLANS}
        if unknown:
            parser.error(f"unknown measures: {', '.join(sorted(unknown))}")
        plans = [p for p in PLANS if p.module in wanted]
    frameworks = set(args.frameworks.split(",")) if args.frameworks else None

    machine = machine_info()
    interpreter, version = find_interpreter(args.python)
    environment = ensure_environment(interpreter, version, args.rebuild)
    progress(
        f"setup: {environment.setup_s:.1f} s ({'created' if environment.created else 'reused'} "
        f"venv, {environment.installer}); OpenAI plugin: {environment.plugin}"
    )

    results: dict[str, MeasureResult] = {}
    for plan in plans:
        rounds = args.rounds or (plan.quick_rounds if args.quick else plan.rounds)
        results[plan.module] = run_measure(plan, environment.python, rounds, args.quick, frameworks)

    goals = [evaluate_goal(goal, results) for goal in GOALS + STRETCH if goal.measure in results]
    meta = {
        "started": started.strftime("%Y-%m-%d %H:%M %Z"),
        "mode": "quick" if args.quick else "full",
        "machine": machine,
        "load_average_end": [round(x, 2) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
        "git": git_info(),
        "total_s": time.perf_counter() - began,
    }
    text = report(results, goals, environment, meta)
    print(text)
    if not args.no_write:
        payload = {
            "meta": meta,
            "environment": {
                "python": environment.python_version,
                "installer": environment.installer,
                "venv_created": environment.created,
                "setup_s": round(environment.setup_s, 1),
                "openai_plugin": environment.plugin,
                "versions": environment.versions,
            },
            "goals": goals,
            "measures": {
                name: {
                    "title": result.plan.title,
                    "rounds": result.rounds,
                    "seconds": round(result.seconds, 1),
                    "rows": {
                        key: {
                            "label": label,
                            "unit": unit,
                            "values": {
                                framework: {
                                    "median": cell.median,
                                    "min": min(cell.values),
                                    "max": max(cell.values),
                                    "rounds": cell.values,
                                }
                                for (row, framework), cell in result.cells.items()
                                if row == key
                            },
                        }
                        for key, (label, unit) in result.rows.items()
                    },
                    "problems": result.problems,
                    "records": result.records,
                }
                for name, result in results.items()
            },
        }
        for path in write_results(text, payload, started.strftime("%Y%m%d-%H%M%S")):
            progress(f"wrote {path.relative_to(ROOT)}")
        if args.publish:
            from readme import PUBLISHED, update_readme

            PUBLISHED.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
            update_readme(payload)
            progress(f"published {PUBLISHED.relative_to(ROOT)} and the README's figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
