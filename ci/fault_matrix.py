"""Write the fault matrix of specs/RELIABILITY.md from the data its tests run.

    python3 dev.py faults

The rows are ``affordance_testing.faults.FAULT_ROWS`` (what ``AdapterContract.test_fault`` is
parametrized by) and the columns the providers' profiles in ``tests/fixtures/fault_profiles.py``
(what each contract wire carries). Only the part of the spec between the two markers is
rewritten; ``tests/ci/test_fault_matrix.py`` fails when it differs from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "RELIABILITY.md"
START = "<!-- fault-matrix:start -->"
END = "<!-- fault-matrix:end -->"
NOTICE = "<!-- written by `python3 dev.py faults` (ci/fault_matrix.py); do not edit by hand -->"


def table() -> str:
    """The section between the markers, rendered from the rows and the profiles."""
    fixtures = str(ROOT / "tests" / "fixtures")
    if fixtures not in sys.path:
        sys.path.insert(0, fixtures)
    from fault_profiles import PROFILES

    from affordance_testing.faults import render_fault_matrix

    return f"{NOTICE}\n\n{render_fault_matrix(PROFILES)}"


def published(text: str) -> str:
    """What ``text`` (the spec) holds between the markers."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{SPEC.name} lacks the markers {START} ... {END}")
    return text[start + len(START) : end].strip("\n") + "\n"


def rewritten(text: str, section: str) -> str:
    """``text`` with ``section`` between the markers."""
    published(text)  # the markers are there, in order
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{section.rstrip()}\n{END}{tail}"


def main() -> int:
    text = SPEC.read_text()
    new = rewritten(text, table())
    if new != text:
        SPEC.write_text(new)
        sys.stdout.write(f"wrote the fault matrix in {SPEC.relative_to(ROOT)}\n")
    else:
        sys.stdout.write(f"{SPEC.relative_to(ROOT)}: the fault matrix is up to date\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
