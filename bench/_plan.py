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
OPENAI_PLUGIN = ROOT / "plugins" / "openai"
ANTHROPIC_PLUGIN = ROOT / "plugins" / "anthropic"
GOOGLE_PLUGIN = ROOT / "plugins" / "google"
MIN_PYTHON = (3, 13)  # weakincentives 0.27 needs >= 3.12 and its render() crashes on 3.12.1

sys.path.insert(0, str(MEASURES_DIR))
from _harness import FRAMEWORK_LABELS  # noqa: E402, F401 - re-exported for the report

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
        "concurrency", "Concurrent async runs (asyncio.gather)", 1, 1, 240, quick_jobs="200"
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
        "`import affordance` < 10% of `import weakincentives`",
        "import_time",
        "package",
        reference="weakincentives",
        max_ratio=0.10,
    ),
    Goal(
        "render (20 sections, 20 tools) < 10% of weakincentives 0.27",
        "render",
        "render",
        reference="weakincentives",
        max_ratio=0.10,
    ),
    Goal("offline run, sync `evaluate` < 50 µs", "offline_run", "sync", max_value=50.0),
    Goal(
        "offline run, async `aevaluate` (async def tool) < 50 µs",
        "offline_run",
        "async_tool",
        max_value=50.0,
    ),
    Goal(
        "OpenAI adapter ≤ 110% of the SDK by hand: Chat Completions, sync",
        "e2e_openai",
        "chat_sync",
        reference="openai-sdk",
        max_ratio=1.10,
    ),
    Goal(
        "OpenAI adapter ≤ 110% of the SDK by hand: Chat Completions, async",
        "e2e_openai",
        "chat_async",
        reference="openai-sdk",
        max_ratio=1.10,
    ),
    Goal(
        "OpenAI adapter ≤ 110% of the SDK by hand: Responses, sync",
        "e2e_openai",
        "responses_sync",
        reference="openai-sdk",
        max_ratio=1.10,
    ),
    Goal(
        "OpenAI adapter ≤ 110% of the SDK by hand: Responses, async",
        "e2e_openai",
        "responses_async",
        reference="openai-sdk",
        max_ratio=1.10,
    ),
    *(
        Goal(
            f"Anthropic adapter ≤ 110% of the SDK by hand: {label}",
            "e2e_anthropic",
            key,
            reference="anthropic-sdk",
            max_ratio=1.10,
        )
        for key, label in (
            ("plain_sync", "plain, sync"),
            ("plain_async", "plain, async"),
            ("stream_sync", "streamed, sync"),
            ("stream_async", "streamed, async"),
        )
    ),
)

GOALS += tuple(
    Goal(
        f"streaming ≤ 110% of the SDK streaming by hand: {label}",
        "stream_openai",
        key,
        reference="openai-sdk",
        max_ratio=1.10,
    )
    for key, label in (
        ("chat_sync_first", "Chat, sync, first text delta"),
        ("chat_sync_total", "Chat, sync, total"),
        ("chat_async_first", "Chat, async, first text delta"),
        ("chat_async_total", "Chat, async, total"),
        ("responses_sync_first", "Responses, sync, first text delta"),
        ("responses_sync_total", "Responses, sync, total"),
        ("responses_async_first", "Responses, async, first text delta"),
        ("responses_async_total", "Responses, async, total"),
    )
)

GOALS += tuple(
    Goal(
        f"Google adapter ≤ 110% of the SDK by hand: {label}",
        "e2e_google",
        key,
        reference="google-sdk",
        max_ratio=1.10,
    )
    for key, label in (
        ("plain_sync", "generateContent, sync"),
        ("plain_async", "generateContent, async"),
        ("stream_sync", "streamGenerateContent, sync"),
        ("stream_async", "streamGenerateContent, async"),
    )
)

# Not the project's goals, shown beside them: the adapter against the SDK's fastest path
# (``with_raw_response`` + ``json.loads``), which is what the adapter itself uses.
STRETCH = tuple(
    Goal(
        f"stretch: OpenAI adapter ≤ 110% of the raw-JSON SDK path: {label}",
        "e2e_openai",
        key,
        reference="openai-sdk-raw",
        max_ratio=1.10,
    )
    for key, label in (
        ("chat_sync", "Chat Completions, sync"),
        ("chat_async", "Chat Completions, async"),
        ("responses_sync", "Responses, sync"),
        ("responses_async", "Responses, async"),
    )
) + tuple(
    Goal(
        f"stretch: Google adapter ≤ 110% of the SDK's HTTP layer by hand: {label}",
        "e2e_google",
        key,
        reference="google-sdk-raw",
        max_ratio=1.10,
    )
    for key, label in (
        ("plain_sync", "generateContent, sync"),
        ("plain_async", "generateContent, async"),
        ("stream_sync", "streamGenerateContent, sync"),
        ("stream_async", "streamGenerateContent, async"),
    )
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
