"""Turning measurements into the markdown table and the JSON record under bench/results/."""

from __future__ import annotations

import json
import os
import platform
import shutil
from pathlib import Path
from typing import Any

from _environment import Environment, run_command
from _plan import FRAMEWORK_LABELS, GOALS, RESULTS, ROOT, Goal, MeasureResult

# -- reporting -------------------------------------------------------------------------------


def format_value(value: float) -> str:
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def format_ratio(ratio: float) -> str:
    if ratio >= 10:
        return f"{ratio:.0f}x"
    if ratio >= 0.1:
        return f"{ratio:.2f}x"
    return f"{ratio:.3f}x"


def round_spread(own: list[float], reference: list[float]) -> str:
    """The lowest and highest per-round ratio of ``own`` to ``reference``, as ``"108-117%"``.

    Rounds are interleaved, so round *i* of both ran close together: the spread shows how far
    one round can stray from the median ratio on this machine. ``"—"`` unless both have a value
    for every round (a framework that failed a round leaves its rounds unpaired).
    """
    if not own or len(own) != len(reference):
        return "—"
    ratios = [mine / theirs for mine, theirs in zip(own, reference, strict=True)]
    return f"{min(ratios) * 100:.0f}-{max(ratios) * 100:.0f}%"


def goal_for(measure: str, key: str) -> Goal | None:
    return next((g for g in GOALS if g.measure == measure and g.metric == key), None)


def evaluate_goal(goal: Goal, results: dict[str, MeasureResult]) -> dict[str, Any]:
    outcome: dict[str, Any] = {"goal": goal.text, "measure": goal.measure, "metric": goal.metric}
    result = results.get(goal.measure)
    cell = result.cells.get((goal.metric, goal.framework)) if result else None
    if result is None or cell is None:
        reasons = result.problems.get(goal.framework, []) if result else ["not run"]
        outcome.update(status="not measured", detail="; ".join(reasons) or "no value")
        return outcome
    unit = result.rows[goal.metric][1]
    value = cell.median
    outcome.update(value=value, unit=unit)
    if goal.max_value is not None:
        passed = value <= goal.max_value
        outcome.update(
            status="pass" if passed else "fail",
            detail=f"{format_value(value)}{_spaced(unit)} (limit "
            f"{format_value(goal.max_value)}{_spaced(unit)})",
        )
        return outcome
    assert goal.reference is not None
    assert goal.max_ratio is not None
    reference = result.cells.get((goal.metric, goal.reference))
    if reference is None:
        outcome.update(status="not measured", detail=f"no {goal.reference} value")
        return outcome
    ratio = value / reference.median
    outcome.update(
        framework=goal.framework,
        reference=goal.reference,
        reference_value=reference.median,
        ratio=ratio,
        status="pass" if ratio <= goal.max_ratio else "fail",
        detail=(
            f"{format_value(value)} vs {format_value(reference.median)} {unit} = "
            f"{ratio * 100:.1f}% (limit {goal.max_ratio * 100:.0f}%)"
        ),
    )
    return outcome


def _spaced(unit: str) -> str:
    """`` unit`` after a value, nothing for a bare number (a ratio, an exponent)."""
    return f" {unit}" if unit else ""


_MARKS = {"pass": "✅", "fail": "❌", "not measured": "⚠️"}


def _goal_spread(goal: dict[str, Any], results: dict[str, MeasureResult]) -> str:
    result = results.get(goal["measure"])
    reference = goal.get("reference")
    if result is None or reference is None:
        return "—"
    own = result.cells.get((goal["metric"], goal["framework"]))
    theirs = result.cells.get((goal["metric"], reference))
    return "—" if own is None or theirs is None else round_spread(own.values, theirs.values)


def measure_table(result: MeasureResult) -> list[str]:
    plan = result.plan
    labels = [FRAMEWORK_LABELS.get(f, f) for f in result.frameworks]
    header = ["measure", *labels, "affordance ÷ reference", "goal"]
    lines = [f"### {plan.title}", ""]
    lines.append(f"Medians of {result.rounds} round(s), one fresh process per framework per round.")
    lines.append("")
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for key, (label, unit) in result.rows.items():
        row = [f"{label} ({unit})"]
        for framework in result.frameworks:
            cell = result.cells.get((key, framework))
            if cell is not None:
                row.append(format_value(cell.median))
            elif framework in result.problems:
                row.append(_short_problem(result.problems[framework]))
            else:
                row.append("·")
        row.append(_ratio_text(result, key))
        row.append(_goal_text(result, key))
        lines.append("| " + " | ".join(row) + " |")
    if result.problems:
        lines.append("")
        lines += [
            f"- {FRAMEWORK_LABELS.get(framework, framework)}: {reason}"
            for framework, reasons in result.problems.items()
            for reason in reasons
        ]
    lines.append("")
    return lines


def _short_problem(reasons: list[str]) -> str:
    text = reasons[0]
    return "skipped" if "skipped" in text else "timeout" if "timeout" in text else "error"


def _ratio_text(result: MeasureResult, key: str) -> str:
    """affordance's median over the reference's: the goal's, the plan's, else the best peer."""
    own = result.cells.get((key, "affordance"))
    if own is None:
        return "—"
    goal = goal_for(result.plan.module, key)
    reference_name = goal.reference if goal and goal.reference else result.plan.reference
    others = {
        framework: cell.median
        for (row, framework), cell in result.cells.items()
        if row == key and framework != "affordance"
    }
    if reference_name not in others:
        peers = {f: v for f, v in others.items() if not f.startswith("openai-sdk")}
        if not peers:
            return "—"
        reference_name = min(peers, key=peers.__getitem__)
    assert reference_name is not None
    reference = others[reference_name]
    if reference == 0:
        return "—"
    name = FRAMEWORK_LABELS.get(reference_name, reference_name)
    return f"{format_ratio(own.median / reference)} {name}"


def _goal_text(result: MeasureResult, key: str) -> str:
    goal = goal_for(result.plan.module, key)
    own = result.cells.get((key, "affordance"))
    if goal is None:
        return ""
    if goal.max_value is not None:
        limit = f"≤ {format_value(goal.max_value)} {result.rows[key][1]}"
        passed = own is not None and own.median <= goal.max_value
    else:
        assert goal.reference is not None
        assert goal.max_ratio is not None
        name = FRAMEWORK_LABELS.get(goal.reference, goal.reference)
        limit = f"≤ {goal.max_ratio * 100:.0f}% of {name}"
        reference = result.cells.get((key, goal.reference))
        passed = (
            own is not None
            and reference is not None
            and own.median / reference.median <= goal.max_ratio
        )
    if own is None:
        return f"⚠️ {limit}"
    return f"{'✅' if passed else '❌'} {limit}"


def details_table(results: dict[str, MeasureResult]) -> list[str]:
    lines = ["<details><summary>Spread: min / median / max over rounds</summary>", ""]
    lines.append("| measure | row | framework | min | median | max | n |")
    lines.append("|---|---|---|---|---|---|---|")
    for name, result in results.items():
        for key, (label, unit) in result.rows.items():
            for framework in result.frameworks:
                cell = result.cells.get((key, framework))
                if cell is None:
                    continue
                lines.append(
                    f"| {name} | {label} ({unit}) | {FRAMEWORK_LABELS.get(framework, framework)} | "
                    f"{format_value(min(cell.values))} | {format_value(cell.median)} | "
                    f"{format_value(max(cell.values))} | {len(cell.values)} |"
                )
    lines += ["", "</details>", ""]
    return lines


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    if hasattr(os, "getloadavg"):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def git_info() -> dict[str, Any]:
    head = run_command(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT)
    dirty = run_command(["git", "status", "--porcelain", "--", "core", "plugins"], cwd=ROOT)
    return {
        "commit": head.stdout.strip() if head.returncode == 0 else None,
        "core_or_plugins_modified": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None,
    }


PEER_DISTRIBUTIONS = (
    "affordance",
    "affordance-openai",
    "affordance-anthropic",
    "affordance-google",
    "weakincentives",
    "pydantic-ai-slim",
    "openai-agents",
    "llm",
    "openai",
    "anthropic",
    "google-genai",
    "httpx2",
    "httpx",
    "pydantic",
)


def report(
    results: dict[str, MeasureResult],
    goals: list[dict[str, Any]],
    environment: Environment,
    meta: dict[str, Any],
) -> str:
    lines = ["# affordance benchmarks", ""]
    machine = meta["machine"]
    lines.append(
        f"{meta['started']} · {meta['mode']} run · {machine.get('cpu', machine['machine'])}, "
        f"{machine['cpus']} CPUs, {machine.get('memory_gib', '?')} GiB · "
        f"load average at start {machine.get('load_average', '?')} · "
        f"Python {environment.python_version} · commit {meta['git']['commit'] or '(not git)'}"
        + (" (core/plugins modified)" if meta["git"]["core_or_plugins_modified"] else "")
    )
    lines.append("")
    versions = ", ".join(
        f"{name} {environment.versions[name]}"
        for name in PEER_DISTRIBUTIONS
        if name in environment.versions
    )
    lines.append(f"Versions: {versions}. OpenAI plugin: {environment.plugin}.")
    lines.append("")
    lines.append("## Goals")
    lines.append("")
    lines.append("| goal | measured | rounds | result |")
    lines.append("|---|---|---|---|")
    for goal in goals:
        mark = _MARKS.get(goal["status"], "")
        spread = _goal_spread(goal, results)
        lines.append(f"| {goal['goal']} | {goal['detail']} | {spread} | {mark} {goal['status']} |")
    lines.append("")
    lines.append("## Results")
    lines.append("")
    for result in results.values():
        lines += measure_table(result)
    lines += details_table(results)
    timings = ", ".join(f"{name} {result.seconds:.0f} s" for name, result in results.items())
    lines.append(
        f"Setup {environment.setup_s:.0f} s ({'created' if environment.created else 'reused'} "
        f"the venv with {environment.installer}); {timings}; total {meta['total_s']:.0f} s."
    )
    lines.append("")
    return "\n".join(lines)


def write_results(text: str, payload: dict[str, Any], stamp: str) -> list[Path]:
    RESULTS.mkdir(exist_ok=True)
    written = []
    for suffix, content in ((".md", text), (".json", json.dumps(payload, indent=2))):
        path = RESULTS / f"bench-{stamp}{suffix}"
        path.write_text(content, encoding="utf-8")
        shutil.copyfile(path, RESULTS / f"latest{suffix}")
        written.append(path)
    return written
