"""The hook specifications (pluggy) every affordance plugin implements a subset of.

Each hook returns a list of declarative specs; implementations are called one at a time so a
raising plugin is recorded and skipped without affecting the others.
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
    """Tool serializers this plugin offers for a provider."""
