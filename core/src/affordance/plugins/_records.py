"""The plugin table: one row per plugin the host saw, with its status and what it contributed."""

from __future__ import annotations

import enum
from typing import Literal

from affordance._frozen import frozen
from affordance.plugins._contributions import Contribution

__all__ = ["UNHEALTHY", "PluginRecord", "PluginStatus", "Source"]

Source = Literal["entry_point", "registered"]


class PluginStatus(str, enum.Enum):
    """What became of a plugin; every status but ``loaded`` comes with a reason."""

    LOADED = "loaded"
    """Imported, registered, and its contributions collected."""
    FAILED = "failed"
    """Its import, registration or one of its hooks raised; it contributes nothing."""
    BLOCKED = "blocked"
    """Disabled, outside the allowlist, or autoload is off; never imported."""
    INCOMPATIBLE = "incompatible"
    """Everything it contributed declares a plugin API this core does not speak."""
    DUPLICATE = "duplicate"
    """Another distribution declares the same entry-point name; neither is imported."""

    def __str__(self) -> str:
        return self.value


UNHEALTHY = (PluginStatus.FAILED, PluginStatus.DUPLICATE, PluginStatus.INCOMPATIBLE)
"""What became of a plugin that should have loaded; strict mode raises for it."""


@frozen
class PluginRecord:
    """One row of the plugin table: ``name`` is the entry-point name (or ``host.register``'s),
    ``value`` the entry point's target, ``notes`` what did not stop the plugin (an incompatible
    spec among compatible ones), ``requires`` its ``Requires-Dist`` lines naming ``affordance``."""

    name: str
    status: PluginStatus
    source: Source = "entry_point"
    distribution: str | None = None
    version: str | None = None
    value: str | None = None
    reason: str | None = None
    hooks: tuple[str, ...] = ()
    contributions: tuple[Contribution, ...] = ()
    notes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``name`` with its distribution, for messages."""
        if self.distribution is None:
            return repr(self.name)
        version = f" {self.version}" if self.version else ""
        return f"{self.name!r} ({self.distribution}{version})"
