"""The hook specifications (pluggy) every affordance plugin implements a subset of.

The four ``affordance_register_*`` hooks return lists of declarative specs; the host calls their
implementations one at a time, so a raising plugin is recorded and skipped without affecting the
others. Every hook is prefixed ``affordance_`` so a misspelled implementation is reported as an
unknown hook instead of being silently ignored. Specs only grow: a new argument arrives in a minor
release (pluggy passes an implementation only the arguments it names).

Only hooks a shipped plugin or a documented example implements are declared here: conflicts are
settled by pins and priorities, never by plugin code.
"""

from __future__ import annotations

import pluggy

from affordance.plugins.specs import CodecSpec, HostedToolKindSpec, ProviderSpec, SerializerSpec

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "affordance"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


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
    """Serializers this plugin offers for a provider, one per role (tool, tool_result, output)."""
