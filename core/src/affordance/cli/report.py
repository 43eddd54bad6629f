"""What ``affordance plugins`` and ``affordance doctor`` say: the plugin table and its health.

It reads a :class:`~affordance.plugins.PluginHost` through the plugin system's public names
only, as any tool could; the plugin system itself knows nothing of reports.

:func:`report` is the table as JSON-ready data (``affordance plugins --json``): every plugin, its
status and contributions, and for each contributed key who won and why. :func:`diagnose` reads
the same host for what will fail (*problems*, exit code 1), what is worth knowing (*warnings*)
and each provider's state (*info*: its SDK against the plugin's floor and cap, whether its API
key variable is set — never the value). The report's shape is versioned by ``schema`` and
documented in ``specs/PLUGINS.md``; fields are only added within one schema version.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal

from affordance._frozen import frozen
from affordance.plugins import (
    PLUGIN_API,
    ConflictError,
    Contribution,
    ContributionKey,
    PinError,
    PluginConfigError,
    PluginError,
    PluginRecord,
    PluginStatus,
    ProviderSpec,
)
from affordance.plugins.requirements import (
    canonical_name,
    installed_version,
    parse_requirement,
    unmet_clauses,
)
from affordance.plugins.settings import LOAD

if TYPE_CHECKING:
    from affordance.plugins import PluginHost, Registry

__all__ = [
    "REPORT_SCHEMA",
    "Diagnosis",
    "Finding",
    "Severity",
    "core_version",
    "diagnose",
    "report",
]

REPORT_SCHEMA = 2
"""2: per-key ``resolutions`` (winner and why) added; ``hook_errors`` removed with the
``affordance_resolve_conflict`` hook."""

Severity = Literal["problem", "warning", "info"]
_UNHEALTHY = (PluginStatus.FAILED, PluginStatus.DUPLICATE, PluginStatus.INCOMPATIBLE)


def core_version() -> str:
    """The installed version of the ``affordance`` distribution (the package's own as fallback)."""
    installed = installed_version("affordance")
    if installed is not None:
        return installed
    from affordance._version import __version__  # only when metadata is missing

    return __version__


# -- the table ---------------------------------------------------------------------------------


def _contribution(contribution: Contribution, registry: Registry) -> dict[str, Any]:
    reason = registry.unavailable_reason(contribution)
    return {
        "category": contribution.key.category,
        "key": contribution.key.dotted,
        "target": contribution.target,
        "priority": contribution.priority,
        "sdk": contribution.sdk,
        "available": reason is None,
        "unavailable_reason": reason,
        "selected": registry.selected(contribution),
    }


def _plugin(record: PluginRecord, registry: Registry) -> dict[str, Any]:
    return {
        "name": record.name,
        "distribution": record.distribution,
        "version": record.version,
        "source": record.source,
        "value": record.value,
        "status": record.status.value,
        "reason": record.reason,
        "hooks": list(record.hooks),
        "notes": list(record.notes),
        "requires": list(record.requires),
        "contributions": [_contribution(c, registry) for c in record.contributions],
    }


def _resolution(key: ContributionKey, registry: Registry) -> dict[str, Any] | None:
    try:
        decision = registry.decision(key)
    except (ConflictError, PinError):
        return None  # listed under "conflicts"
    if decision is None:
        return None
    winner = decision.winner
    return {
        "category": key.category,
        "key": key.dotted,
        "winner": winner.pin_name,
        "reason": decision.reason,
        "why": decision.describe(),
    }


def _conflict(error: PluginError, registry: Registry) -> dict[str, Any]:
    key: ContributionKey = error.key  # type: ignore[attr-defined]
    tied = error.candidates if isinstance(error, ConflictError) else registry.candidates(key)
    return {
        "category": key.category,
        "key": key.dotted,
        "kind": "tie" if isinstance(error, ConflictError) else "pin",
        "message": str(error),
        "candidates": [
            {
                "plugin": c.plugin,
                "distribution": c.distribution,
                "version": c.version,
                "priority": c.priority,
            }
            for c in tied
        ],
    }


def report(host: PluginHost) -> dict[str, Any]:
    """Everything ``affordance plugins --json`` shows, as JSON-ready data.

    Loads the host's plugins if needed. Use a non-strict host (the CLI does): a strict host
    raises for a broken plugin instead of reporting it.
    """
    records = host.records()
    registry = host.registry()
    settings = host.settings
    resolutions = [_resolution(key, registry) for key in registry.keys(category=None)]
    return {
        "schema": REPORT_SCHEMA,
        "core": {"distribution": "affordance", "version": core_version(), "plugin_api": PLUGIN_API},
        "settings": {
            "autoload": settings.autoload,
            "strict": settings.strict,
            "disable": sorted(settings.disable),
            "load": None if settings.load is None else sorted(settings.load),
            "pins": {key.pin_text: dist for key, dist in sorted(host.pins.items())},
            "import_timeout": settings.import_timeout,
        },
        "plugins": [_plugin(record, registry) for record in records],
        "resolutions": [r for r in resolutions if r is not None],
        "conflicts": [_conflict(error, registry) for error in registry.conflicts()],
    }


# -- health ------------------------------------------------------------------------------------


@frozen
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


@frozen
class Diagnosis:
    """All findings; :attr:`healthy` when none is a problem."""

    core_version: str
    findings: tuple[Finding, ...]

    def of(self, severity: Severity) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == severity)

    @property
    def problems(self) -> tuple[Finding, ...]:
        return self.of("problem")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return self.of("warning")

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


def _record_findings(record: PluginRecord, core: str) -> list[Finding]:
    def found(kind: str, message: str, severity: Severity = "problem") -> Finding:
        return Finding(kind, message, severity, record.name, record.distribution)

    findings: list[Finding] = []
    if record.status in _UNHEALTHY:
        findings.append(
            found(
                f"plugin-{record.status.value}",
                f"plugin {record.label} {record.status.value}: {record.reason}",
            )
        )
    findings.extend(
        found("spec-skipped", f"plugin {record.label}: {note}", "warning") for note in record.notes
    )
    if record.distribution is None:
        return findings
    if not record.requires:
        if record.status is PluginStatus.LOADED:
            findings.append(
                found(
                    "no-core-requirement",
                    f"{record.distribution} declares no requirement on affordance; plugins "
                    "should declare affordance>=X.Y,<NEXT_MAJOR",
                    "warning",
                )
            )
        return findings
    for line in record.requires:
        try:
            broken = unmet_clauses(parse_requirement(line), core)
        except PluginConfigError as exc:
            broken = [str(exc)]
        if broken:
            findings.append(
                found(
                    "version-skew",
                    f"{record.distribution} {record.version or ''} requires {line}, but "
                    f"affordance {core} is installed ({'; '.join(broken)})",
                )
            )
    return findings


def _provider_state(contribution: Contribution, environ: Any) -> Finding | None:
    """The provider's SDK against its floor and cap, and whether its key variable is set."""
    spec = contribution.spec
    if not isinstance(spec, ProviderSpec):
        return None
    parts: list[str] = []
    if spec.sdk is not None:
        sdk = parse_requirement(spec.sdk)
        installed = installed_version(sdk.name)
        if installed is None:
            return None  # reported as unavailable
        verdict = "within" if not unmet_clauses(sdk, installed) else "outside"
        parts.append(f"{sdk.name} {installed} {verdict} {sdk.specifier}")
    parts.extend(
        f"{name} {'is set' if environ.get(name) else 'is not set'}" for name in spec.api_key_env
    )
    if not parts:
        return None
    return Finding(
        "provider",
        f"provider {spec.name}: {'; '.join(parts)}",
        "info",
        contribution.plugin,
        contribution.distribution,
    )


def diagnose(host: PluginHost, environ: Any = None) -> Diagnosis:
    """Check the host's plugins; loads them if needed, never raises for a broken plugin
    (use a non-strict host). ``environ`` defaults to ``os.environ``."""
    environ = os.environ if environ is None else environ
    records = host.records()
    registry = host.registry()
    core = core_version()
    findings: list[Finding] = []
    for record in records:
        findings.extend(_record_findings(record, core))
    findings.extend(
        Finding("conflict" if isinstance(error, ConflictError) else "pin-mismatch", str(error))
        for error in registry.conflicts()
    )
    for contribution in registry.contributions():
        reason = registry.unavailable_reason(contribution)
        selected = registry.selected(contribution)
        if reason is not None and selected is not False:
            findings.append(
                Finding(
                    "unavailable",
                    f"{contribution.key} from {contribution.origin} is unavailable: {reason}",
                    "problem",
                    contribution.plugin,
                    contribution.distribution,
                )
            )
        elif selected:
            state = _provider_state(contribution, environ)
            if state is not None:
                findings.append(state)
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
