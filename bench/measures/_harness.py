"""What every measure shares: its command line, the timing loops, memory readings and the
one-line JSON record the orchestrator (``bench/run.py``) reads.

A measure module defines ``JOBS`` (``(framework, extra arguments)`` pairs, one process each
per round) and ``measure(framework, args) -> Sample``, and ends with ``main(...)``. Run with
``--framework F`` it measures F in this process (the orchestrator's way); run bare it runs
every job, each in a fresh subprocess of itself, and prints the numbers.

Only the standard library is imported at module level, so the orchestrator can read ``JOBS``
with any Python.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "FRAMEWORK_LABELS",
    "Metric",
    "Sample",
    "Skip",
    "current_rss_mb",
    "fixtures_on_path",
    "growth",
    "jobs_of",
    "main",
    "peak_rss_mb",
    "time_awaits",
    "time_calls",
    "versions_of",
]

BENCH_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = BENCH_DIR.parent

FRAMEWORK_LABELS: dict[str, str] = {
    "affordance": "affordance",
    "weakincentives": "weakincentives",
    "pydantic-ai": "pydantic-ai",
    "openai-agents": "openai-agents",
    "llm": "llm",
    "openai-sdk": "openai SDK by hand",
    "openai-sdk-raw": "openai SDK by hand, raw JSON",
    "anthropic-sdk": "anthropic SDK by hand",
    "anthropic-sdk-raw": "anthropic SDK by hand, raw JSON",
    "google-sdk": "google-genai SDK by hand",
    "google-sdk-raw": "google-genai SDK by hand, raw JSON",
    "mcp-sdk": "mcp SDK by hand",
}

# distribution names whose versions each framework's record carries
_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "affordance": (
        "affordance",
        "affordance-openai",
        "affordance-anthropic",
        "affordance-google",
        "affordance-mcp",
        "openai",
        "anthropic",
        "google-genai",
        "mcp",
    ),
    "weakincentives": ("weakincentives",),
    "pydantic-ai": ("pydantic-ai-slim", "pydantic", "openai"),
    "openai-agents": ("openai-agents", "openai"),
    "llm": ("llm",),
    "openai-sdk": ("openai", "httpx", "httpx2"),
    "openai-sdk-raw": ("openai", "httpx", "httpx2"),
    "anthropic-sdk": ("anthropic", "httpx", "httpx2"),
    "anthropic-sdk-raw": ("anthropic", "httpx", "httpx2"),
    "google-sdk": ("google-genai", "httpx", "httpx2"),
    "google-sdk-raw": ("google-genai", "httpx", "httpx2"),
    "mcp-sdk": ("mcp", "mcp-server-time", "anyio"),
}


class Skip(Exception):  # noqa: N818 - a verdict, not an error
    """This framework cannot run this measure here (not installed, no such feature, ...)."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One number of a sample. ``key`` is stable across runs; ``label`` is the table row."""

    key: str
    label: str
    unit: str
    value: float


@dataclass(slots=True)
class Sample:
    """What one process measured for one framework."""

    metrics: list[Metric] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)

    def add(self, key: str, label: str, unit: str, value: float) -> None:
        self.metrics.append(Metric(key, label, unit, value))


# -- timing ------------------------------------------------------------------------------------


def _calibrate(elapsed_for: Callable[[int], float], target_s: float) -> int:
    """How many calls make one repetition last about ``target_s``."""
    number = 1
    while True:
        elapsed = elapsed_for(number)
        if elapsed >= target_s / 10 or number >= 1_000_000:
            return max(1, int(number * target_s / max(elapsed, 1e-9)))
        number *= 4


def time_calls(
    call: Callable[[], object],
    *,
    target_s: float = 0.2,
    repeat: int = 5,
) -> float:
    """Seconds per call of ``call``: the best of ``repeat`` repetitions of about ``target_s``.

    Best, as ``timeit`` does: on a shared machine noise only ever adds time, so the fastest
    repetition is the closest to the code's own cost (the orchestrator then takes the median
    over rounds). The garbage collector stays on: collecting what a framework allocates is part
    of its cost.
    """

    def elapsed_for(number: int) -> float:
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            call()
        return time.perf_counter() - start

    number = _calibrate(elapsed_for, target_s)
    return min(elapsed_for(number) / number for _ in range(repeat))


async def time_awaits(
    call: Callable[[], Awaitable[object]],
    *,
    target_s: float = 0.2,
    repeat: int = 5,
) -> float:
    """The async form of :func:`time_calls`: awaited one after another on the running loop."""

    async def elapsed_for(number: int) -> float:
        gc.collect()
        start = time.perf_counter()
        for _ in range(number):
            await call()
        return time.perf_counter() - start

    number = 1
    while True:
        elapsed = await elapsed_for(number)
        if elapsed >= target_s / 10 or number >= 1_000_000:
            number = max(1, int(number * target_s / max(elapsed, 1e-9)))
            break
        number *= 4
    return min([await elapsed_for(number) / number for _ in range(repeat)])


# -- growth ------------------------------------------------------------------------------------


def growth(smaller: float, before: float, larger: float, after: float) -> tuple[float, float]:
    """How a cost grows between two sizes: ``before`` at size ``smaller``, ``after`` at
    ``larger``. Returns the marginal cost per unit, (after - before) / (larger - smaller), and
    the growth exponent, log(after / before) / log(larger / smaller): 1 is linear, 2 quadratic,
    near 0 a cost the constant part of the work hides (noise can make it slightly negative)."""
    return (
        (after - before) / (larger - smaller),
        math.log(after / before) / math.log(larger / smaller),
    )


# -- memory ------------------------------------------------------------------------------------


def current_rss_mb() -> float:
    """Resident set size of this process now, in MiB (Linux ``/proc``; else the peak)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError):
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """The highest resident set size this process reached, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


# -- environment -------------------------------------------------------------------------------


def fixtures_on_path() -> None:
    """Make ``tests/fixtures`` importable (the ``loopback`` server lives there)."""
    fixtures = str(REPO_ROOT / "tests" / "fixtures")
    if fixtures not in sys.path:
        sys.path.insert(0, fixtures)


def versions_of(framework: str) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str] = {}
    for dist in _DISTRIBUTIONS.get(framework, ()):
        with contextlib.suppress(PackageNotFoundError):
            found[dist] = version(dist)
    return found


# -- command line ------------------------------------------------------------------------------


def _record(
    measure: str, framework: str, variant: Sequence[str], sample: Sample | None, **extra: Any
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "measure": measure,
        "framework": framework,
        "variant": list(variant),
        "python": sys.version.split()[0],
        "versions": versions_of(framework),
    }
    if sample is not None:
        record["status"] = "ok"
        record["metrics"] = [
            {"key": m.key, "label": m.label, "unit": m.unit, "value": m.value}
            for m in sample.metrics
        ]
        record["info"] = sample.info
    record.update(extra)
    return record


def _format_value(value: float, unit: str) -> str:
    return f"{value:.4g} {unit}"


def _print_human(record: dict[str, Any]) -> None:
    head = f"{record['measure']} · {FRAMEWORK_LABELS.get(record['framework'], record['framework'])}"
    if record["variant"]:
        head += f" ({' '.join(record['variant'])})"
    if record["status"] != "ok":
        print(f"{head}: {record['status']}: {record.get('reason', '')}")
        return
    print(head)
    for metric in record["metrics"]:
        print(f"  {metric['label']}: {_format_value(metric['value'], metric['unit'])}")
    for key, value in record.get("info", {}).items():
        print(f"  · {key}: {value}")


def _variant_arguments(argv: Sequence[str]) -> list[str]:
    """The measure's own arguments: everything but the harness's flags."""
    variant: list[str] = []
    rest = iter(argv)
    for argument in rest:
        if argument == "--framework":
            next(rest, None)
        elif argument not in ("--json", "--quick") and not argument.startswith("--framework="):
            variant.append(argument)
    return variant


def jobs_of(
    frameworks: Sequence[str], variants: Sequence[Sequence[str]] = ((),)
) -> list[tuple[str, tuple[str, ...]]]:
    """Every framework with every variant: one process each per round."""
    return [(framework, tuple(variant)) for variant in variants for framework in frameworks]


def main(
    measure_name: str,
    measure: Callable[[str, argparse.Namespace], Sample],
    jobs: Sequence[tuple[str, Sequence[str]]],
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
) -> None:
    """Run one job in this process (``--framework``), or every job in a fresh process each."""
    frameworks = list(dict.fromkeys(framework for framework, _ in jobs))
    parser = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__)
    parser.add_argument("--framework", choices=frameworks, help="measure only this, in-process")
    parser.add_argument("--json", action="store_true", help="print one JSON record per sample")
    parser.add_argument("--quick", action="store_true", help="shorter timing loops")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args()
    variant = _variant_arguments(sys.argv[1:])

    if args.framework is None:
        for framework, extra in jobs:
            if variant and list(extra) != variant:
                continue
            command = [sys.executable, sys.argv[0], "--framework", framework, "--json"]
            command += [*extra, *(["--quick"] if args.quick else [])]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            lines = done.stdout.strip().splitlines()
            if done.returncode != 0 or not lines:
                print(f"{measure_name} · {framework}: failed\n{done.stderr[-2000:]}")
                continue
            record = json.loads(lines[-1])
            if args.json:
                print(json.dumps(record))
            else:
                _print_human(record)
        return

    try:
        sample = measure(args.framework, args)
        record = _record(measure_name, args.framework, variant, sample)
    except Skip as skip:
        record = _record(
            measure_name, args.framework, variant, None, status="skipped", reason=str(skip)
        )
    except Exception as error:
        traceback.print_exc()
        record = _record(
            measure_name,
            args.framework,
            variant,
            None,
            status="error",
            reason=f"{type(error).__name__}: {error}",
        )
    if args.json:
        sys.stdout.flush()
        print(json.dumps(record))
    else:
        _print_human(record)
