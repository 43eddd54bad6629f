"""What the bench measures, in which order, and the goals it holds affordance to; and the
shape of a measure's results."""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MEASURES_DIR = BENCH / "measures"
RESULTS = BENCH / "results"
VENVS = ROOT / ".bench"
REQUIREMENTS = BENCH / "requirements-peers.txt"
CORE = ROOT / "core"
TESTING = ROOT / "testing"  # affordance-testing: the loopback server the measures talk to
OPENAI_PLUGIN = ROOT / "plugins" / "openai"
ANTHROPIC_PLUGIN = ROOT / "plugins" / "anthropic"
GOOGLE_PLUGIN = ROOT / "plugins" / "google"
MCP_PLUGIN = ROOT / "plugins" / "mcp"
OTEL_PLUGIN = ROOT / "plugins" / "otel"
MIN_PYTHON = (3, 13)  # weakincentives 0.27 needs >= 3.12 and its render() crashes on 3.12.1

sys.path.insert(0, str(MEASURES_DIR))
from _harness import FRAMEWORK_LABELS, growth  # noqa: E402, F401 - re-exported for the reports

FRAMEWORK_ORDER = (
    "affordance",
    "weakincentives",
    "pydantic-ai",
    "openai-agents",
    "llm",
    "openai-sdk",
    "openai-sdk-raw",
    "anthropic-sdk",
    "anthropic-sdk-raw",
    "google-sdk",
    "google-sdk-raw",
    "mcp-sdk",
)


# -- what is measured ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeasurePlan:
    """One module of ``bench/measures``: how many rounds, and how long one process may take."""

    module: str
    title: str
    rounds: int
    quick_rounds: int
    timeout_s: float
    reference: str | None = None  # the column ratios are taken against, if not the best peer
    quick_jobs: str | None = None  # a filter on the variant in quick mode (e.g. "200")


PLANS = (
    MeasurePlan("import_time", "Import time (fresh interpreter)", 4, 2, 180),
    MeasurePlan("render", "Render a 20-section prompt with 20 tools", 5, 2, 120),
    MeasurePlan("offline_run", "Offline run: one tool call, then the answer", 4, 2, 180),
    MeasurePlan(
        "run_control", "Run controls: an offline run with limits and a validator", 3, 1, 180
    ),
    MeasurePlan(
        "e2e_openai",
        "End to end: the real openai SDK against the loopback server",
        3,
        1,
        240,
        reference="openai-sdk",
    ),
    MeasurePlan(
        "stream_openai",
        "Streaming end to end: the real openai SDK streaming from the loopback server",
        3,
        1,
        240,
        reference="openai-sdk",
    ),
    MeasurePlan(
        "e2e_anthropic",
        "End to end: the real anthropic SDK against the loopback server, plain and streamed",
        3,
        1,
        240,
        reference="anthropic-sdk",
    ),
    MeasurePlan(
        "e2e_google",
        "End to end: the real google-genai SDK against the loopback server, plain and streamed",
        3,
        1,
        240,
        reference="google-sdk",
    ),
    MeasurePlan(
        "tracing",
        "Tracing: a run over HTTP with affordance-otel on, and without",
        3,
        1,
        240,
    ),
    MeasurePlan(
        "concurrency", "Concurrent async runs (asyncio.gather)", 1, 1, 240, quick_jobs="200"
    ),
    MeasurePlan(
        "scaling_work",
        "Scaling with work: tools, history, result size, parallel calls",
        1,
        1,
        240,
    ),
    MeasurePlan(
        "scaling_load",
        "Scaling with load: concurrent runs, streamed deltas",
        1,
        1,
        240,
    ),
    MeasurePlan(
        "mcp_call",
        "One MCP tool call (mcp-server-time over stdio): through a run, and by hand",
        5,
        2,
        240,
        reference="mcp-sdk",
    ),
)


@dataclass(frozen=True, slots=True)
class Goal:
    """A performance goal of the project: a ratio to a peer, or an absolute ceiling."""

    text: str
    measure: str
    metric: str
    reference: str | None = None
    max_ratio: float | None = None
    max_value: float | None = None
    framework: str = "affordance"


GOALS = (
    Goal(
        "`import affordance` ≤ 10% of `import weakincentives`",
        "import_time",
        "package",
        reference="weakincentives",
        max_ratio=0.10,
    ),
    Goal(
        "render (20 sections, 20 tools) ≤ 10% of weakincentives 0.27",
        "render",
        "render",
        reference="weakincentives",
        max_ratio=0.10,
    ),
    Goal("`import affordance` ≤ 15 ms", "import_time", "package", max_value=15.0),
    Goal("offline run, sync `evaluate` ≤ 40 µs", "offline_run", "sync", max_value=40.0),
    Goal(
        "offline run, `aevaluate` with a plain `def` tool ≤ 50 µs",
        "offline_run",
        "async",
        max_value=50.0,
    ),
    Goal(
        "offline run, `aevaluate` with an `async def` tool ≤ 50 µs",
        "offline_run",
        "async_tool",
        max_value=50.0,
    ),
    Goal(
        "limits and an output validator: a run at most 1.03 times a plain one, `evaluate`",
        "run_control",
        "ratio_sync",
        max_value=1.03,
    ),
    Goal(
        "limits and an output validator: a run at most 1.03 times a plain one, `aevaluate`",
        "run_control",
        "ratio_async",
        max_value=1.03,
    ),
    Goal(
        "traced (the SDK's spans and metrics): a run over HTTP at most 1.05 times a plain one, "
        "`evaluate`",
        "tracing",
        "ratio_sync",
        max_value=1.05,
    ),
    Goal(
        "traced (the SDK's spans and metrics): a run over HTTP at most 1.05 times a plain one, "
        "`aevaluate`",
        "tracing",
        "ratio_async",
        max_value=1.05,
    ),
)


# Scaling (issue 32): no cliff as the work grows.
GOALS += tuple(
    Goal(
        f"request body per tool on a busy adapter (12,000 tools served), {count:,} tools: at "
        "most 3 times a fresh adapter's with 1,000",
        "scaling_work",
        f"body_busy_{count}_ratio",
        max_value=3.0,
    )
    for count in (1_025, 10_000)
)
GOALS += tuple(
    Goal(
        f"request body per turn of history, {provider}: 2,000 turns at most 1.2 times 200",
        "scaling_work",
        f"body_{key}_turn_ratio",
        max_value=1.2,
    )
    for key, provider in (
        ("openai_responses", "OpenAI Responses"),
        ("openai_chat", "OpenAI Chat"),
        ("anthropic", "Anthropic"),
        ("google", "Google"),
    )
)
GOALS += (
    Goal(
        "a 10 MB tool result adds at most 1 MiB of peak memory beyond the result",
        "scaling_work",
        "result_10mb_memory",
        max_value=1.0,
    ),
    Goal(
        "session append: per event onto 100,000 events at most 1.2 times onto 10",
        "scaling_work",
        "session_event_ratio",
        max_value=1.2,
    ),
    Goal(
        "10,000 concurrent offline runs: wall time at most 1 s",
        "scaling_load",
        "concurrent_10000_wall",
        max_value=1000.0,
    ),
    Goal(
        "10,000 concurrent offline runs: at most 20 MiB of peak memory added",
        "scaling_load",
        "concurrent_10000_memory",
        max_value=20.0,
    ),
)


def _against_raw(
    measure: str, provider: str, reference: str, limit: float, rows: tuple[tuple[str, str], ...]
) -> tuple[Goal, ...]:
    """Goals for ``measure``: each row within ``limit`` of the SDK's fastest path by hand
    (raw JSON, no typed models: the client's public ``post`` for openai and anthropic, the
    API client's ``request`` for google), measured in the same run."""
    return tuple(
        Goal(
            f"{provider} ≤ {limit:.0%} of the SDK's fastest path: {label}",
            measure,
            key,
            reference=reference,
            max_ratio=limit,
        )
        for key, label in rows
    )


_CHAT_AND_RESPONSES = (
    ("chat_sync", "Chat Completions, sync"),
    ("chat_async", "Chat Completions, async"),
    ("responses_sync", "Responses, sync"),
    ("responses_async", "Responses, async"),
)
_PLAIN_AND_STREAMED = (
    ("plain_sync", "plain, sync"),
    ("plain_async", "plain, async"),
    ("stream_sync", "streamed, sync"),
    ("stream_async", "streamed, async"),
)

GOALS += _against_raw("e2e_openai", "OpenAI adapter", "openai-sdk-raw", 1.05, _CHAT_AND_RESPONSES)
GOALS += _against_raw(
    "stream_openai",
    "OpenAI streaming",
    "openai-sdk-raw",
    1.10,
    tuple(
        (f"{api}_{mode}_{part}", f"{name}, {mode}, {what}")
        for api, name in (("chat", "Chat"), ("responses", "Responses"))
        for mode in ("sync", "async")
        for part, what in (("first", "first text delta"), ("total", "total"))
    ),
)
GOALS += _against_raw(
    "e2e_anthropic", "Anthropic adapter", "anthropic-sdk-raw", 1.10, _PLAIN_AND_STREAMED
)
GOALS += _against_raw("e2e_google", "Google adapter", "google-sdk-raw", 1.10, _PLAIN_AND_STREAMED)
# One MCP call's share of a run (the run calling the MCP tool, less the same run calling a local
# tool of the same arguments) against the bare `call_tool`; the whole run (two model turns
# around the call) against it is in the measure's table, not a goal.
GOALS += _against_raw(
    "mcp_call",
    "One MCP tool call through a run",
    "mcp-sdk",
    1.10,
    (("sync_share", "its share of a sync run"), ("async_share", "its share of an async run")),
)

# Not goals, shown beside them: the adapters against the SDKs' typed paths, which is how most
# applications call a provider by hand.
STRETCH = tuple(
    Goal(
        f"vs the typed SDK: {provider}: {label}",
        measure,
        key,
        reference=reference,
        max_ratio=1.0,
    )
    for measure, provider, reference, rows in (
        ("e2e_openai", "OpenAI", "openai-sdk", _CHAT_AND_RESPONSES),
        ("e2e_anthropic", "Anthropic", "anthropic-sdk", _PLAIN_AND_STREAMED),
        ("e2e_google", "Google", "google-sdk", _PLAIN_AND_STREAMED),
    )
    for key, label in rows
)


@dataclass(slots=True)
class Cell:
    """Every round's value of one metric for one framework."""

    values: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.values)


@dataclass(slots=True)
class MeasureResult:
    plan: MeasurePlan
    rounds: int
    frameworks: list[str]
    rows: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (label, unit)
    cells: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (key, framework)
    problems: dict[str, list[str]] = field(default_factory=dict)  # framework -> reasons
    records: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
