"""The fault matrix as data: what a provider's server (or its model) does wrong, and what an
adapter must make of it.

Each :class:`FaultRow` names a fault, the ways of running it applies to and the documented
outcome: answered (after one retry, or empty), a :class:`PromptEvaluationError` with the
details it must carry, or a failed tool result the model reads. :class:`AdapterContract`
(``affordance_testing.contract``) runs every row in every mode it applies to against the
provider's fake server; :func:`render_fault_matrix` writes the same rows as the table in
``specs/RELIABILITY.md``, so the two cannot drift apart.

A provider's :class:`FaultProfile` (its contract wire's ``profile``) says who retries, which
status means overloaded, which SDK loggers to watch, and where its outcome differs from the
row's — a row its wire format cannot express is a :class:`Deviation` without an outcome, with
the reason, shown so in the table and reported as a skip, never left out silently.

Import the matrix from here; its parts live in ``fault_vocabulary`` (the modes, wire faults,
outcomes and sentinels), ``fault_rows`` (the rows) and ``fault_table`` (the profiles and the
table). Nothing here imports an SDK or a plugin.
"""

from __future__ import annotations

from affordance_testing.fault_rows import FAULT_CASES, FAULT_ROWS, FaultRow
from affordance_testing.fault_table import Deviation, FaultProfile, render_fault_matrix
from affordance_testing.fault_vocabulary import (
    ANSWER,
    ARGUMENT_SENTINEL,
    FAULT_REQUEST_ID,
    MODES,
    PLAIN,
    PROMPT_SENTINEL,
    RESULT_SENTINEL,
    RUN_DEADLINE,
    SENTINELS,
    STREAMED,
    WIRE_FAULTS,
    Answered,
    Mode,
    Outcome,
    Raised,
    ToolFailed,
    WireFault,
)

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
