"""The hook specifications (pluggy) every affordance plugin implements a subset of.

The four ``affordance_register_*`` hooks return lists of declarative specs; the host calls their
implementations one at a time, so a raising plugin is recorded and skipped without affecting the
others. Every hook is prefixed ``affordance_`` so a misspelled implementation is reported as an
unknown hook instead of being silently ignored. Specs only grow: a new argument arrives in a minor
release (pluggy passes an implementation only the arguments it names).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from affordance.plugins.specs import CodecSpec, HostedToolKindSpec, ProviderSpec, SerializerSpec

if TYPE_CHECKING:
    from affordance.plugins._contributions import Contribution, ContributionKey
    from affordance.plugins._host import PluginHost
    from affordance.plugins._settings import PluginSettings

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "affordance"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(historic=True)
def affordance_add_hookspecs(pluginmanager: pluggy.PluginManager) -> None:
    """Add hook specifications of your own (``pluginmanager.add_hookspecs(module)``).

    Historic: called for every plugin as it is registered, so a hosted-tool plugin can publish
    hooks that provider plugins implement, whatever the order they load in.
    """


@hookspec
def affordance_register_providers() -> list[ProviderSpec]:  # type: ignore[empty-body]
    """Provider adapters this plugin offers."""


@hookspec
def affordance_register_hosted_tool_kinds() -> list[HostedToolKindSpec]:  # type: ignore[empty-body]
    """Hosted tool kinds this plugin defines."""


@hookspec
def affordance_register_codecs() -> list[CodecSpec]:  # type: ignore[empty-body]
    """Hosted-tool codecs this plugin offers, keyed by (provider, kind)."""


@hookspec
def affordance_register_serializers() -> list[SerializerSpec]:  # type: ignore[empty-body]
    """Tool serializers this plugin offers for a provider."""


@hookspec(firstresult=True)
def affordance_resolve_conflict(
    key: ContributionKey, candidates: tuple[Contribution, ...], settings: PluginSettings
) -> Contribution | None:
    """Choose among contributions tied for ``key`` (return one of ``candidates``), or None.

    Consulted after the user's pin and before ``priority``; the first non-None answer wins.
    An answer that is not one of the candidates is ignored and reported.
    """


@hookspec
def affordance_loaded(host: PluginHost) -> None:
    """Called once per plugin after entry points are loaded (or when registered later)."""
