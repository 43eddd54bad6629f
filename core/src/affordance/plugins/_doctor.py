"""Plugin health: conflicts, unavailable SDKs, broken plugins, core/plugin version skew.

What ``affordance doctor`` prints. A *problem* means something a user asked for will fail (exit
code 1); a *warning* is worth knowing but breaks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins._report import core_version
from affordance.plugins._requirements import Requirement, canonical_name
from affordance.plugins._settings import LOAD
from affordance.plugins.errors import ConflictError, PluginConfigError

if TYPE_CHECKING:
    from affordance.plugins._host import PluginHost

__all__ = ["Diagnosis", "Finding", "diagnose"]

Severity = Literal["problem", "warning"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the doctor found; ``kind`` is a stable identifier (``version-skew``...)."""

    kind: str
    message: str
    severity: Severity = "problem"
    plugin: str | None = None
    distribution: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "plugin": self.plugin,
            "distribution": self.distribution,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """All findings; :attr:`healthy` when none is a problem."""

    core_version: str
    findings: tuple[Finding, ...]

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "problem")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def healthy(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "core_version": self.core_version,
            "healthy": self.healthy,
            "findings": [f.to_dict() for f in self.findings],
        }


def _skew(record: PluginRecord, core: str) -> list[Finding]:
    if record.distribution is None:
        return []
    if not record.requires:
        if record.status is not PluginStatus.LOADED:
            return []
        return [
            Finding(
                "no-core-requirement",
                f"{record.distribution} declares no requirement on affordance; plugins should "
                "declare affordance>=X.Y,<NEXT_MAJOR",
                "warning",
                record.name,
                record.distribution,
            )
        ]
    findings: list[Finding] = []
    for line in record.requires:
        try:
            failures = Requirement.parse(line).failures(core)
        except PluginConfigError as exc:
            failures = [str(exc)]
        if failures:
            findings.append(
                Finding(
                    "version-skew",
                    f"{record.distribution} {record.version or ''} requires {line}, but "
                    f"affordance {core} is installed ({'; '.join(failures)})",
                    "problem",
                    record.name,
                    record.distribution,
                )
            )
    return findings


def diagnose(host: PluginHost) -> Diagnosis:
    """Check the host's plugins; loads them if needed, never raises for a broken plugin
    (use a non-strict host)."""
    records = host.records()
    registry = host.registry()
    core = core_version()
    findings: list[Finding] = []
    for record in records:
        if record.status in (
            PluginStatus.FAILED,
            PluginStatus.DUPLICATE,
            PluginStatus.INCOMPATIBLE,
        ):
            findings.append(
                Finding(
                    f"plugin-{record.status.value}",
                    f"plugin {record.label} {record.status.value}: {record.reason}",
                    "problem",
                    record.name,
                    record.distribution,
                )
            )
        findings.extend(
            Finding(
                "spec-skipped",
                f"plugin {record.label}: {note}",
                "warning",
                record.name,
                record.distribution,
            )
            for note in record.notes
        )
        findings.extend(_skew(record, core))
    findings.extend(
        Finding("conflict" if isinstance(error, ConflictError) else "pin-mismatch", str(error))
        for error in registry.conflicts()
    )
    for contribution in registry.contributions():
        reason = registry.unavailable_reason(contribution)
        if reason is not None and registry.selected(contribution) is not False:
            findings.append(
                Finding(
                    "unavailable",
                    f"{contribution.key} from {contribution.origin} is unavailable: {reason}",
                    "problem",
                    contribution.plugin,
                    contribution.distribution,
                )
            )
    findings.extend(Finding("hook-error", error) for error in host.hook_errors)
    contributed = set(registry.keys())
    findings.extend(
        Finding("unused-pin", f"pin {key.pin_text}={dist}: no plugin contributes {key}", "warning")
        for key, dist in host.pins.items()
        if key not in contributed
    )
    if host.settings.load is not None:
        seen = {canonical_name(r.name) for r in records} | {
            canonical_name(r.distribution) for r in records if r.distribution
        }
        findings.extend(
            Finding("not-installed", f"{LOAD} names {name!r}, which is not installed", "warning")
            for name in sorted(host.settings.load - seen)
        )
    return Diagnosis(core_version=core, findings=tuple(findings))
