"""The fault matrix's rows: each fault, the ways of running it applies to, and its documented
outcome, as data (:data:`FAULT_ROWS`); :data:`FAULT_CASES` is every row in every mode, what
``AdapterContract.test_fault`` is parametrized by.

A model fault's arguments are built on demand (some are over a megabyte, or nested past any
parser). Imported through :mod:`affordance_testing.faults`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from affordance.runtime import MAX_ARGUMENTS_SIZE
from affordance.serde import MAX_DEPTH
from affordance_testing.fault_vocabulary import (
    ARGUMENT_SENTINEL,
    MODES,
    PLAIN,
    STREAMED,
    Answered,
    Mode,
    Outcome,
    Raised,
    ToolFailed,
    WireFault,
)

__all__ = ["FAULT_CASES", "FAULT_ROWS", "FAULT_ROWS_BY_NAME", "FaultRow"]


def _nested(depth: int) -> str:
    """Arguments whose ``entity_id`` sits inside ``depth - 1`` arrays (``depth`` levels)."""
    inner = "[" * (depth - 1) + json.dumps(ARGUMENT_SENTINEL) + "]" * (depth - 1)
    return '{"entity_id":' + inner + "}"


def _arguments(**values: Any) -> Callable[[], str]:
    text = json.dumps(values)
    return lambda: text


@dataclass(frozen=True, slots=True)
class FaultRow:
    """One fault and its documented outcome.

    The fault is either a wire fault (``wire``: the server misbehaves) or a model fault: the
    model calls ``tool`` with ``arguments`` (raw text, built on demand) in ``calling_turns``
    turns in a row, then answers. ``options`` go to the run (``deadline``, ``max_turns``).
    """

    name: str
    fault: str
    outcome: Outcome
    modes: tuple[Mode, ...] = MODES
    wire: WireFault | None = None
    tool: str = "lookup"
    arguments: Callable[[], str] | None = None
    calling_turns: int = 1
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    note: str = ""

    def __post_init__(self) -> None:
        if (self.wire is None) == (self.arguments is None):
            raise ValueError(f"row {self.name!r}: give exactly one of wire and arguments")
        if not self.modes or not set(self.modes) <= set(MODES):
            raise ValueError(f"row {self.name!r}: modes must be some of {MODES}")
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))


_RESPONSE_ERROR = Raised("response", request_id=True)

FAULT_ROWS: tuple[FaultRow, ...] = (
    FaultRow(
        "rate-limited",
        "429 with a retry header asking for a few ms (`retry-after-ms`, or `Retry-After` where "
        "only that is read), once",
        Answered(retried=True),
        wire="rate-limited",
    ),
    FaultRow(
        "rate-limited-no-retry-after",
        "429 without any retry header, once",
        Answered(retried=True),
        wire="rate-limited-no-retry-after",
        note="after the retrier's own backoff: 0.5 s less up to 25 %, slept for real where the "
        "run's clock is the system's (OpenAI, Anthropic), on the injected clock for Google",
    ),
    FaultRow(
        "server-error",
        "500 on every attempt",
        Raised("request", 500, request_id=True, requests="retried"),
        wire="server-error",
    ),
    FaultRow(
        "overloaded",
        "the provider's overloaded status (503; 529 on Anthropic), once",
        Answered(retried=True),
        wire="overloaded",
    ),
    FaultRow(
        "read-timeout",
        "no reply within the read timeout (a 0.1 s deadline), on every attempt",
        Raised("request"),
        modes=PLAIN,
        wire="read-timeout",
        options={"deadline": 0.1},
        note="the attempt ends at the deadline, and no retry starts that would end past it",
    ),
    FaultRow(
        "stream-stall",
        "a stream's headers and first event, then silence past the read timeout (a 0.5 s deadline)",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="read-timeout",
        options={"deadline": 0.5},  # room for the headers on a loaded machine
    ),
    FaultRow(
        "reset-mid-body",
        "half a JSON body, then a TCP reset, once",
        Answered(retried=True),
        modes=PLAIN,
        wire="reset-mid-body",
    ),
    FaultRow(
        "reset-mid-stream",
        "two events of a stream, then a TCP reset",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="reset-mid-body",
        note="a stream that has begun is never retried",
    ),
    FaultRow(
        "cut-mid-event",
        "two events and half of the third, then the body ends cleanly",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="cut-mid-event",
    ),
    FaultRow(
        "truncated-json",
        "a 200 JSON body cut short",
        Raised("response", 200, request_id=True),
        modes=PLAIN,
        wire="truncated-json",
    ),
    FaultRow(
        "truncated-event",
        "a stream event whose JSON is cut short",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="truncated-json",
    ),
    FaultRow(
        "wrong-content-type",
        "a 200 `text/html` page",
        Raised("response", 200, request_id=True),
        modes=PLAIN,
        wire="wrong-content-type",
    ),
    FaultRow(
        "wrong-content-type-stream",
        "a 200 `text/html` page answering a stream request",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="wrong-content-type",
    ),
    FaultRow(
        "no-choices",
        "a 200 whose choices (candidates) list is empty",
        Raised("response", 200, request_id=True),
        modes=PLAIN,
        wire="no-choices",
    ),
    FaultRow(
        "no-choices-stream",
        "a stream whose chunks carry no choice (candidate)",
        _RESPONSE_ERROR,
        modes=STREAMED,
        wire="no-choices",
    ),
    FaultRow(
        "empty-answer",
        "an answer with no content at all",
        Answered(empty=True),
        wire="empty-answer",
    ),
    FaultRow(
        "unknown-tool",
        "the model calls a tool the prompt does not have",
        ToolFailed("Unknown tool 'no_such_tool'"),
        tool="no_such_tool",
        arguments=_arguments(entity_id=ARGUMENT_SENTINEL),
    ),
    FaultRow(
        "arguments-not-json",
        "arguments that are not JSON",
        ToolFailed("are not valid JSON"),
        arguments=lambda: '{"entity_id": "' + ARGUMENT_SENTINEL,
    ),
    FaultRow(
        "extra-field",
        "arguments with a field the tool does not have",
        ToolFailed("unknown field 'unexpected'"),
        arguments=_arguments(entity_id=ARGUMENT_SENTINEL, unexpected=ARGUMENT_SENTINEL),
    ),
    FaultRow(
        "missing-field",
        "arguments without a required field",
        ToolFailed("entity_id: missing required field"),
        arguments=_arguments(verbose=True),
    ),
    FaultRow(
        "arguments-over-1mb",
        f"arguments just over {MAX_ARGUMENTS_SIZE:,} characters (1 MiB)",
        ToolFailed("too large"),
        arguments=lambda: json.dumps({"entity_id": ARGUMENT_SENTINEL + "x" * MAX_ARGUMENTS_SIZE}),
    ),
    FaultRow(
        "nested-past-the-limit",
        f"arguments nested {MAX_DEPTH + 1} levels",
        ToolFailed(f"nested deeper than {MAX_DEPTH} levels"),
        arguments=lambda: _nested(MAX_DEPTH + 1),
    ),
    FaultRow(
        "nested-10000-levels",
        "arguments nested 10,000 levels",
        ToolFailed(f"nested deeper than {MAX_DEPTH} levels"),
        arguments=lambda: _nested(10_000),
    ),
    FaultRow(
        "tools-forever",
        "the model calls a tool in every turn (`max_turns=3`)",
        Raised("loop", requests=3),
        arguments=_arguments(entity_id=ARGUMENT_SENTINEL),
        calling_turns=3,
        options={"max_turns": 3},
        note="each turn's call gets its one result before the next request",
    ),
)

FAULT_CASES: tuple[tuple[FaultRow, Mode], ...] = tuple(
    (row, mode) for row in FAULT_ROWS for mode in row.modes
)
"""Every row in every mode it applies to: what ``AdapterContract.test_fault`` runs."""

FAULT_ROWS_BY_NAME: Mapping[str, FaultRow] = MappingProxyType({row.name: row for row in FAULT_ROWS})
"""Each row by its name: what a provider's :class:`~affordance_testing.fault_table.Deviation`
names."""
