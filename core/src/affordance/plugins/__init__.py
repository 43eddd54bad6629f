"""The plugin system: provider adapters, hosted-tool kinds and codecs, found through entry points.
Importing it scans nothing: the default host loads the plugins on the first :func:`registry` or
:func:`load_adapter`. ``specs/PLUGINS.md`` has the rules and the public API."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from affordance._lazy import lazy_exports
from affordance.plugins._contributions import Contribution, ContributionKey
from affordance.plugins._host import PluginHost
from affordance.plugins._loader import ENTRY_POINT_GROUP
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins._registry import Decision, Registry
from affordance.plugins.errors import (
    CodecConflictError,
    ConflictError,
    InvalidSpecError,
    PinError,
    PluginConfigError,
    PluginError,
    PluginLoadError,
    PluginUnavailableError,
    ProviderConflictError,
    SerializerConflictError,
    UnknownProviderError,
)
from affordance.plugins.hookspecs import hookimpl, hookspec
from affordance.plugins.hosted_kinds import hosted_kind_hooks
from affordance.plugins.settings import PluginOptions, PluginSettings
from affordance.plugins.specs import (
    PLUGIN_API,
    SERIALIZER_ROLES,
    CodecSpec,
    HostedToolKindSpec,
    ProviderSpec,
    SerializerSpec,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from affordance.runtime.loop.evaluator import Evaluator

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGIN_API",
    "SERIALIZER_ROLES",
    "CodecConflictError",
    "CodecSpec",
    "ConflictError",
    "Contribution",
    "ContributionKey",
    "Decision",
    "HostedToolKindSpec",
    "InvalidSpecError",
    "PinError",
    "PluginConfigError",
    "PluginError",
    "PluginHost",
    "PluginLoadError",
    "PluginOptions",
    "PluginRecord",
    "PluginSettings",
    "PluginStatus",
    "PluginUnavailableError",
    "ProviderConflictError",
    "ProviderSpec",
    "Registry",
    "SerializerConflictError",
    "SerializerSpec",
    "UnknownProviderError",
    "configure",
    "default_host",
    "hookimpl",
    "hookspec",
    "hosted_kind_hooks",
    "lazy_exports",
    "load_adapter",
    "registry",
]

_default_host: PluginHost | None = None
_default_lock = threading.Lock()


def default_host() -> PluginHost:
    """The process-wide host, created (from the environment) on first call; loads nothing yet."""
    global _default_host
    host = _default_host
    if host is None:
        with _default_lock:
            if _default_host is None:
                _default_host = PluginHost()
            host = _default_host
    return host


def registry() -> Registry:
    """The default host's registry; the first call loads the installed plugins."""
    return default_host().registry()


def configure(**options: Unpack[PluginOptions]) -> PluginHost:
    """Replace the default host by one with these options (:class:`PluginOptions`) over the
    environment's, keeping the plugins registered in code; call it before the registry's first
    use, or the plugins are loaded again."""
    global _default_host
    with _default_lock:
        fresh = PluginHost(**options)
        if _default_host is not None:
            for name, plugin in _default_host.registered_in_code():
                fresh.register(plugin, name=name)
        _default_host = fresh
    return fresh


def load_adapter(name: str, **options: Any) -> Evaluator:
    """Build the adapter of provider ``name`` (``"openai"``) with ``options`` (``model=...``).
    Raises :class:`UnknownProviderError` (listing what there is, and the plugins that did not
    load, with why) or :class:`PluginUnavailableError` (its SDK is missing or too old)."""
    return registry().load_adapter(name, **options)
