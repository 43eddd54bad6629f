"""Entry-point discovery, not pluggy's (which crashes on one broken plugin, silently keeps the
first of two distributions declaring a name, and loads in filesystem order): sorted, duplicates
reported, the disable list and allowlist applied first (``specs/PLUGINS.md``, "Loading")."""

from __future__ import annotations

import importlib.metadata
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace

from affordance.plugins._base_errors import PluginConfigError
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins.requirements import canonical_name, parse_requirement
from affordance.plugins.settings import DISABLE, LOAD, PluginSettings

__all__ = ["ENTRY_POINT_GROUP", "Found", "discover", "select"]

ENTRY_POINT_GROUP = "affordance.plugins"
_CORE_REQUIREMENT = re.compile(r"\s*affordance\s*(?:[\[(;<>=!~ ]|$)", re.IGNORECASE)

Found = tuple[importlib.metadata.EntryPoint, PluginRecord]
"""An entry point and its plugin's row: ``loaded`` until something stops it."""


def _core_requirements(requires: Iterable[str] | None) -> tuple[str, ...]:
    """A distribution's requirements on ``affordance``, but an extra's (one with a marker)."""
    found: list[str] = []
    for line in requires or ():
        if _CORE_REQUIREMENT.match(line) is None:
            continue  # another distribution: not worth parsing
        try:
            requirement = parse_requirement(line)
        except PluginConfigError:
            continue
        if requirement.marker is None:
            found.append(line.strip())
    return tuple(found)


def discover(group: str = ENTRY_POINT_GROUP) -> list[Found]:
    """Each entry point in ``group`` with its row, sorted by ``(name, distribution)``; no import."""
    found: list[Found] = []
    for entry_point in importlib.metadata.entry_points(group=group):
        record = PluginRecord(entry_point.name, PluginStatus.LOADED, value=entry_point.value)
        dist = entry_point.dist
        if dist is not None:
            record = replace(
                record,
                distribution=dist.metadata["Name"] or None,
                version=dist.version,
                requires=_core_requirements(dist.requires),
            )
        found.append((entry_point, record))
    return sorted(
        found, key=lambda pair: (pair[1].name, canonical_name(pair[1].distribution or ""))
    )


def select(found: Sequence[Found], settings: PluginSettings) -> list[Found]:
    """``found`` with the plugins not to import marked ``blocked`` or ``duplicate``, with why.
    The lists apply first, so disabling one of two duplicates lets the other load."""

    def blocked(record: PluginRecord) -> str | None:
        if settings.is_disabled(record.name, record.distribution):
            return f"disabled by the disable list ({DISABLE})"
        if not settings.is_allowed(record.name, record.distribution):
            return f"not in the allowlist ({LOAD})"
        return None

    verdicts = [(entry_point, record, blocked(record)) for entry_point, record in found]
    wanted: dict[str, list[PluginRecord]] = defaultdict(list)
    for _, record, reason in verdicts:
        if reason is None:
            wanted[record.name].append(record)
    selected: list[Found] = []
    for entry_point, record, reason in verdicts:
        rivals = [r for r in wanted[record.name] if r is not record]
        row = record
        if reason is not None:
            row = replace(record, status=PluginStatus.BLOCKED, reason=reason)
        elif rivals:
            others = ", ".join(f"{r.distribution or '?'} {r.version or ''}".strip() for r in rivals)
            duplicate = (
                f"entry point {record.name!r} is also declared by {others}; neither is loaded. "
                f"Uninstall one, or disable one with {DISABLE}={rivals[0].distribution or '...'}"
            )
            row = replace(record, status=PluginStatus.DUPLICATE, reason=duplicate)
        selected.append((entry_point, row))
    return selected
