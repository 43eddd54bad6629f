"""A provider's column of the fault matrix, and the table itself.

A provider's :class:`FaultProfile` (its contract wire's ``profile``) says who retries, which
status means overloaded, which SDK loggers to watch, and where its outcome differs from the
row's — a row its wire format cannot express is a :class:`Deviation` without an outcome, with
the reason, shown so in the table and reported as a skip, never left out silently.
:func:`render_fault_matrix` writes the rows and the profiles as the table in
``specs/RELIABILITY.md``. Imported through :mod:`affordance_testing.faults`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from affordance_testing.fault_rows import FAULT_ROWS, FAULT_ROWS_BY_NAME, FaultRow
from affordance_testing.fault_vocabulary import MODES, PLAIN, STREAMED, Mode, Outcome

__all__ = ["Deviation", "FaultProfile", "render_fault_matrix"]


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
        row = FAULT_ROWS_BY_NAME.get(self.row)
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
