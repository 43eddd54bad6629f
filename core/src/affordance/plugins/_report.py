"""The plugin table as JSON-ready data: what ``affordance plugins --json`` prints.

The shape is versioned by ``schema`` and documented in ``specs/PLUGINS.md``; fields are only
added, never renamed or removed, within one schema version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from affordance.plugins._contributions import Contribution, ContributionKey
from affordance.plugins._records import PluginRecord
from affordance.plugins._requirements import installed_version
from affordance.plugins.errors import ConflictError, PluginError
from affordance.plugins.specs import PLUGIN_API

if TYPE_CHECKING:
    from affordance.plugins._host import PluginHost
    from affordance.plugins._registry import Registry

__all__ = ["REPORT_SCHEMA", "core_version", "report"]

REPORT_SCHEMA = 1


def core_version() -> str:
    """The installed version of the ``affordance`` distribution (the package's own as fallback)."""
    installed = installed_version("affordance")
    if installed is not None:
        return installed
    from affordance import __version__  # only when metadata is missing

    return __version__


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
    return {
        "schema": REPORT_SCHEMA,
        "core": {"distribution": "affordance", "version": core_version(), "plugin_api": PLUGIN_API},
        "settings": {
            "autoload": settings.autoload,
            "strict": settings.strict,
            "disable": sorted(settings.disable),
            "load": None if settings.load is None else sorted(settings.load),
            "pins": {key.pin_text: dist for key, dist in sorted(host.pins.items())},
        },
        "plugins": [_plugin(record, registry) for record in records],
        "conflicts": [_conflict(error, registry) for error in registry.conflicts()],
        "hook_errors": list(host.hook_errors),
    }
