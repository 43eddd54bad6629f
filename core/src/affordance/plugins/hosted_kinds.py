"""``hosted_kind_hooks``: the hooks registering a ``HostedKind`` declaration's kind and codecs,
by dotted path (nothing is imported); ``specs/PLUGINS.md``, "A hosted tool in one declaration"."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from affordance.plugins.hookspecs import hookimpl
from affordance.plugins.specs import CodecSpec, HostedToolKindSpec

if TYPE_CHECKING:
    from affordance.tools.hosted_kind import HostedKind

__all__ = ["hosted_kind_hooks"]


def hosted_kind_hooks(
    declared: HostedKind[Any],
) -> tuple[Callable[[], list[HostedToolKindSpec]], Callable[[], list[CodecSpec]]]:
    """``affordance_register_hosted_tool_kinds`` and ``affordance_register_codecs`` for
    ``declared``; assign them to those names in the plugin's entry module."""

    @hookimpl
    def affordance_register_hosted_tool_kinds() -> list[HostedToolKindSpec]:
        return [
            HostedToolKindSpec(
                kind=declared.kind,
                config=declared.config,
                output=declared.output,
                description=declared.description,
            )
        ]

    @hookimpl
    def affordance_register_codecs() -> list[CodecSpec]:
        return [
            CodecSpec(provider=provider, kind=declared.kind, factory=factory)
            for provider, factory in declared.codecs.items()
        ]

    return affordance_register_hosted_tool_kinds, affordance_register_codecs
