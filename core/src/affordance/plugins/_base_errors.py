"""The plugin system's base errors, below every other module of the package (see ``errors``)."""

from __future__ import annotations

from affordance.errors import AffordanceError

__all__ = ["InvalidSpecError", "PluginConfigError", "PluginError"]


class PluginError(AffordanceError):
    """Base class of the plugin system's errors."""


class PluginConfigError(PluginError, ValueError):
    """A setting (an ``AFFORDANCE_*`` variable or a ``configure()`` argument) is malformed."""


class InvalidSpecError(PluginError, ValueError):
    """A plugin built a spec with a malformed field; the plugin is reported as failed."""
