"""The hook specifications (pluggy) every affordance plugin implements a subset of, each prefixed
``affordance_`` so that a misspelled implementation is reported (``specs/PLUGINS.md``, "Hooks")."""

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
