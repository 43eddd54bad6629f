"""The fault matrix's vocabulary: the four ways of running, the faults a contract wire injects,
the outcomes a row documents, and the constants every fault run shares.

:mod:`affordance_testing.fault_rows` writes the rows in these terms, a provider's profile
(:mod:`affordance_testing.fault_table`) its deviations, and :class:`AdapterContract` checks the
runs by them. Imported through :mod:`affordance_testing.faults`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, TypeAlias

__all__ = [
    "ANSWER",
    "ARGUMENT_SENTINEL",
    "FAULT_REQUEST_ID",
    "MODES",
    "PLAIN",
    "PROMPT_SENTINEL",
    "RESULT_SENTINEL",
    "RUN_DEADLINE",
    "SENTINELS",
    "STREAMED",
    "WIRE_FAULTS",
    "Answered",
    "Mode",
    "Outcome",
    "Raised",
    "ToolFailed",
    "WireFault",
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
