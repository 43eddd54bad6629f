"""Microseconds per call of `parse`, `dump` and `schema` for a typical nested tool-params class.

Run: `PYTHONPATH=core/src python bench/bench_serde.py`. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Literal

from affordance.serde import dump, parse, schema
from affordance.serde._schema import _build as build_schema  # uncached, for the one-off cost


class Priority(Enum):
    LOW = "low"
    NORMAL = "normal"
    HIGH = "high"


@dataclass(frozen=True, slots=True)
class Filters:
    tags: tuple[str, ...] = ()
    project: str | None = None
    min_score: float = field(default=0.0, metadata={"ge": 0})


@dataclass(frozen=True, slots=True)
class CreateTaskParams:
    """Create a task in the tracker."""

    title: str = field(metadata={"min_length": 1, "max_length": 200})
    priority: Priority
    due: datetime | None
    assignees: list[str]
    filters: Filters
    mode: Literal["draft", "final"] = "draft"


DATA = {
    "title": "Write the serde benchmark",
    "priority": "high",
    "due": "2025-03-01T12:00:00Z",
    "assignees": ["ada", "grace", "linus"],
    "filters": {"tags": ["perf", "serde"], "project": "affordance", "min_score": 0.5},
    "mode": "final",
}


def per_call_us(statement: Callable[[], object], number: int) -> float:
    best = min(timeit.repeat(statement, number=number, repeat=5))
    return best / number * 1e6


def main() -> None:
    params = parse(CreateTaskParams, DATA)
    assert parse(CreateTaskParams, dump(params)) == params
    schema(CreateTaskParams)  # warm the caches, as a running application would be

    rows = [
        ("parse", per_call_us(lambda: parse(CreateTaskParams, DATA), 20_000)),
        ("dump", per_call_us(lambda: dump(params), 20_000)),
        ("dump(exclude_none)", per_call_us(lambda: dump(params, exclude_none=True), 20_000)),
        ("schema (cached)", per_call_us(lambda: schema(CreateTaskParams), 200_000)),
        ("schema (first build)", per_call_us(lambda: build_schema(CreateTaskParams), 2_000)),
    ]
    for name, micros in rows:
        print(f"{name:<22} {micros:8.2f} µs/call")


if __name__ == "__main__":
    main()
