"""The fault matrix as data: what a provider's server (or its model) does wrong, and what an
adapter must make of it.

Each :class:`FaultRow` names a fault, the ways of running it applies to and the documented
outcome: answered (after one retry, or empty), a :class:`PromptEvaluationError` with the
details it must carry, or a failed tool result the model reads. :class:`AdapterContract`
(``affordance.testing.contract``) runs every row in every mode it applies to against the
provider's fake server; :func:`render_fault_matrix` writes the same rows as the table in
``specs/RELIABILITY.md``, so the two cannot drift apart.

A provider's :class:`FaultProfile` (its contract wire's ``profile``) says who retries, which
status means overloaded, which SDK loggers to watch, and where its outcome differs from the
row's — a row its wire format cannot express is a :class:`Deviation` without an outcome, with
the reason, shown so in the table and reported as a skip, never left out silently.

Nothing here imports an SDK or a plugin.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from affordance.runtime.executor import MAX_ARGUMENTS_SIZE
from affordance.serde import MAX_DEPTH

__all__ = [
    "ANSWER",
    "ARGUMENT_SENTINEL",
    "FAULT_CASES",
    "FAULT_REQUEST_ID",
    "FAULT_ROWS",
    "MODES",
    "PLAIN",
    "PROMPT_SENTINEL",
    "RESULT_SENTINEL",
    "RUN_DEADLINE",
    "SENTINELS",
    "STREAMED",
    "WIRE_FAULTS",
    "Answered",
    "Deviation",
    "FaultProfile",
    "FaultRow",
    "Mode",
    "Outcome",
    "Raised",
    "ToolFailed",
    "WireFault",
    "render_fault_matrix",
]

Mode = Literal["evaluate", "aevaluate", "stream", "astream"]
MODES: tuple[Mode, ...] = ("evaluate", "aevaluate", "stream", "astream")
PLAIN: tuple[Mode, ...] = ("evaluate", "aevaluate")
STREAMED: tuple[Mode, ...] = ("stream", "astream")

WireFault = Literal[
    "rate-limited",
    "rate-limited-no-retry-after",
    "server-error",
    "overloaded",
    "read-timeout",
    "reset-mid-body",
    "cut-mid-event",
    "truncated-json",
    "wrong-content-type",
    "no-choices",
    "empty-answer",
]
"""What a contract wire's ``script_fault`` injects; see :data:`WIRE_FAULTS` for each one."""

WIRE_FAULTS: Mapping[WireFault, str] = MappingProxyType(
    {
        "rate-limited": "a 429 with the retry header the retrier reads, asking for a few "
        "milliseconds; once",
        "rate-limited-no-retry-after": "a 429 with no retry header; once",
        "server-error": "a 500; on every request from now on",
        "overloaded": "the provider's overloaded status (``FaultProfile.overloaded_status``); once",
        "read-timeout": "a plain request: no reply at all; a stream request: its headers and "
        "first event, then nothing; on every request from now on",
        "reset-mid-body": "a plain request: half the body of an answer, then a TCP reset; a "
        "stream request: two events, then a TCP reset; once",
        "cut-mid-event": "a stream request: two events and half of the third, then the body "
        "ends cleanly; once",
        "truncated-json": "a plain request: a 200 JSON body cut short; a stream request: a "
        "stream whose second event's JSON is cut short; once",
        "wrong-content-type": "a 200 ``text/html`` page; once",
        "no-choices": "a 200 whose list of choices (candidates) is empty, streamed as chunks "
        "without one; once",
        "empty-answer": "a 200 answer with no content at all, in the provider's own form; once",
    }
)
"""Every wire fault and what the wire sends for it. Each fault reply that gets as far as HTTP
headers carries :data:`FAULT_REQUEST_ID` in the provider's request-id header."""

FAULT_REQUEST_ID = "req_fault_matrix"
"""The request id every fault reply carries, so an error can be checked to pass it on."""

ANSWER = "Recovered."
"""The model's final answer after a fault the run survives."""

PROMPT_SENTINEL = "zq-PROMPT-7c41"
ARGUMENT_SENTINEL = "zq-ARGUMENT-93be"
RESULT_SENTINEL = "zq-RESULT-d20f"
SENTINELS = (PROMPT_SENTINEL, ARGUMENT_SENTINEL, RESULT_SENTINEL)
"""Strings the contract puts in the prompt, the model's arguments and the tool's result: none
may appear in a log record of the run."""

RUN_DEADLINE = 20.0
"""Every fault run's deadline, which also bounds each HTTP request's timeout: nothing hangs."""


# -- outcomes ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answered:
    """The run ends with the model's answer: :data:`ANSWER`, or no text at all (``empty``).
    ``retried``: after exactly one retry of the request (two requests), else one request."""

    retried: bool = False
    empty: bool = False

    def describe(self) -> str:
        if self.empty:
            return "an empty answer (`text` is None)"
        return "answered after one retry" if self.retried else "answered"


@dataclass(frozen=True, slots=True)
class Raised:
    """A ``PromptEvaluationError`` naming the provider, in ``phase``, with ``status``; with the
    :data:`FAULT_REQUEST_ID` the server sent when ``request_id``. ``requests``: how many were
    made — a number, ``"retried"`` (more than one: the retry budget was spent), or None (not
    fixed: see the row)."""

    phase: str
    status: int | None = None
    request_id: bool = False
    requests: int | Literal["retried"] | None = 1

    def describe(self) -> str:
        details = [f"phase `{self.phase}`"]
        details.append(f"HTTP {self.status}" if self.status is not None else "no status")
        details.append("the request id" if self.request_id else "no request id")
        if self.requests == "retried":
            after = "; after the retry budget"
        elif self.requests == 1:
            after = "; not retried"
        elif isinstance(self.requests, int):
            after = f"; after {self.requests} requests"
        else:
            after = ""
        return f"`PromptEvaluationError` ({', '.join(details)}){after}"


@dataclass(frozen=True, slots=True)
class ToolFailed:
    """Each call gets exactly one failed result, whose message holds ``detail``; the model
    reads it as a failure and the run goes on to :data:`ANSWER`."""

    detail: str

    def describe(self) -> str:
        return f"failed result (`{self.detail}`), the run goes on"


Outcome: TypeAlias = Answered | Raised | ToolFailed


# -- rows --------------------------------------------------------------------------------------


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

_ROWS_BY_NAME = {row.name: row for row in FAULT_ROWS}


# -- providers ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deviation:
    """Where a provider's outcome differs from the row's, and why: ``outcome`` None means the
    row does not apply (the wire format cannot express it)."""

    row: str
    reason: str
    outcome: Outcome | None = None
    modes: tuple[Mode, ...] = MODES

    def __post_init__(self) -> None:
        row = _ROWS_BY_NAME.get(self.row)
        if row is None:
            raise ValueError(f"no fault row is named {self.row!r}")
        object.__setattr__(self, "modes", tuple(m for m in row.modes if m in self.modes))
        if not self.modes:
            raise ValueError(f"deviation for {self.row!r} covers none of its modes")


@dataclass(frozen=True, slots=True)
class FaultProfile:
    """What a provider's contract wire declares for the fault matrix.

    ``provider`` titles its column; ``retrier`` says who retries (and with what budget in the
    tests); ``overloaded_status`` is the status its overloaded reply carries; ``loggers`` are
    its SDK's (and HTTP library's) loggers, watched at DEBUG with ``affordance`` for content.
    """

    provider: str
    retrier: str
    overloaded_status: int = 503
    loggers: tuple[str, ...] = ()
    deviations: tuple[Deviation, ...] = ()

    def deviation(self, row: FaultRow, mode: Mode) -> Deviation | None:
        return next((d for d in self.deviations if d.row == row.name and mode in d.modes), None)

    def expected(self, row: FaultRow, mode: Mode) -> Outcome | None:
        """The outcome this provider must produce for ``row`` run in ``mode`` (None: the row
        does not apply)."""
        deviation = self.deviation(row, mode)
        return row.outcome if deviation is None else deviation.outcome


# -- the table ---------------------------------------------------------------------------------


def _modes(modes: Sequence[Mode]) -> str:
    if tuple(modes) == MODES:
        return "all"
    if tuple(modes) == PLAIN:
        return "plain"
    if tuple(modes) == STREAMED:
        return "streamed"
    return ", ".join(modes)


def _cell(profile: FaultProfile, row: FaultRow) -> str:
    notes = []
    for deviation in profile.deviations:
        if deviation.row != row.name:
            continue
        scope = "" if deviation.modes == row.modes else f"{_modes(deviation.modes)}: "
        what = "n/a" if deviation.outcome is None else deviation.outcome.describe()
        notes.append(f"{scope}{what} — {deviation.reason}")
    return "; ".join(notes) if notes else "✓"


def render_fault_matrix(profiles: Sequence[FaultProfile]) -> str:
    """The fault matrix as Markdown: the providers, then one row per fault with its outcome
    and, per provider, ✓ or where it differs."""
    lines = [
        "| provider | who retries | overloaded | SDK loggers watched |",
        "| --- | --- | --- | --- |",
    ]
    lines.extend(
        f"| {p.provider} | {p.retrier} | {p.overloaded_status} | "
        f"{', '.join(f'`{name}`' for name in p.loggers)} |"
        for p in profiles
    )
    lines.append("")
    header = ["row", "fault", "modes", "outcome", *(p.provider for p in profiles), "test"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + " --- |" * len(header))
    for row in FAULT_ROWS:
        outcome = row.outcome.describe() + (f" — {row.note}" if row.note else "")
        cells = [
            f"`{row.name}`",
            row.fault,
            _modes(row.modes),
            outcome,
            *(_cell(p, row) for p in profiles),
            f"`test_fault[{row.name}-<mode>]`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
