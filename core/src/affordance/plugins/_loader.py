"""Entry-point discovery: find ``affordance.plugins`` entry points, decide which may load.

pluggy's own loader lets one broken plugin crash the host, silently keeps only the first of two
distributions declaring one entry-point name, and loads in filesystem order. This one sorts by
``(name, distribution)``, reports duplicates naming both distributions (loading neither), applies
the disable list and the allowlist before importing anything, and leaves the import itself to the
host, which isolates each one.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from affordance.plugins._base_errors import PluginConfigError
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins.requirements import canonical_name, is_unconditional, parse_requirement
from affordance.plugins.settings import DISABLE, LOAD, PluginSettings

__all__ = ["ENTRY_POINT_GROUP", "Candidate", "discover", "select"]

ENTRY_POINT_GROUP = "affordance.plugins"
CORE_DISTRIBUTION = "affordance"
_LEADING_NAME = re.compile(r"\s*affordance\s*(?:[\[(;<>=!~ ]|$)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Candidate:
    """An entry point found in the group, with its distribution's name, version and its
    ``Requires-Dist`` lines on ``affordance`` (for the doctor's version-skew check)."""

    entry_point: importlib.metadata.EntryPoint
    distribution: str | None
    version: str | None
    requires: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.entry_point.name

    @property
    def value(self) -> str:
        return self.entry_point.value

    def record(self, status: PluginStatus, reason: str | None = None) -> PluginRecord:
        return PluginRecord(
            name=self.name,
            status=status,
            source="entry_point",
            distribution=self.distribution,
            version=self.version,
            value=self.value,
            reason=reason,
            requires=self.requires,
        )


def _core_requirements(requires: Iterable[str] | None) -> tuple[str, ...]:
    """The unconditional requirements on ``affordance`` among a distribution's requirements."""
    found: list[str] = []
    for line in requires or ():
        if _LEADING_NAME.match(line) is None:
            continue  # another distribution: not worth parsing
        try:
            requirement = parse_requirement(line)
        except PluginConfigError:
            continue
        if canonical_name(requirement.name) == CORE_DISTRIBUTION and is_unconditional(requirement):
            found.append(line.strip())
    return tuple(found)


def discover(group: str = ENTRY_POINT_GROUP) -> list[Candidate]:
    """Every entry point in ``group``, sorted by ``(name, distribution)``; imports nothing."""
    candidates: list[Candidate] = []
    for entry_point in importlib.metadata.entry_points(group=group):
        dist = entry_point.dist
        if dist is None:
            candidates.append(Candidate(entry_point, None, None))
            continue
        candidates.append(
            Candidate(
                entry_point,
                distribution=dist.metadata["Name"] or None,
                version=dist.version,
                requires=_core_requirements(dist.requires),
            )
        )
    return sorted(candidates, key=lambda c: (c.name, canonical_name(c.distribution or "")))


def select(
    candidates: Sequence[Candidate], settings: PluginSettings
) -> list[tuple[Candidate, PluginRecord | None]]:
    """Pair each candidate with the record of why it will not be imported (None: import it).

    The disable list and the allowlist apply first, so disabling one of two duplicates lets
    the other load.
    """
    verdicts: dict[int, PluginRecord | None] = {}
    wanted: list[Candidate] = []
    for index, candidate in enumerate(candidates):
        if settings.is_disabled(candidate.name, candidate.distribution):
            verdicts[index] = candidate.record(
                PluginStatus.BLOCKED, f"disabled by the disable list ({DISABLE})"
            )
        elif not settings.is_allowed(candidate.name, candidate.distribution):
            verdicts[index] = candidate.record(
                PluginStatus.BLOCKED, f"not in the allowlist ({LOAD})"
            )
        else:
            wanted.append(candidate)
    by_name: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in wanted:
        by_name[candidate.name].append(candidate)
    for index, candidate in enumerate(candidates):
        if index in verdicts:
            continue
        rivals = [c for c in by_name[candidate.name] if c is not candidate]
        if not rivals:
            verdicts[index] = None
            continue
        others = ", ".join(f"{c.distribution or '?'} {c.version or ''}".strip() for c in rivals)
        verdicts[index] = candidate.record(
            PluginStatus.DUPLICATE,
            f"entry point {candidate.name!r} is also declared by {others}; neither is loaded. "
            f"Uninstall one, or disable one with {DISABLE}={rivals[0].distribution or '...'}",
        )
    return [(candidate, verdicts[index]) for index, candidate in enumerate(candidates)]
