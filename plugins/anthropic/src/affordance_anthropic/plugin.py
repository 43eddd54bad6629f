"""The entry point of ``affordance-anthropic``: declares the provider and its serializers by
dotted path only.

This module imports ``affordance`` and nothing else, so discovering the plugin never imports
the ``anthropic`` SDK; the registry imports the adapter and the serializers on first use.
"""

from __future__ import annotations

from affordance.plugins import ProviderSpec, SerializerSpec, hookimpl

__all__ = [
    "ANTHROPIC_SDK_REQUIREMENT",
    "affordance_register_providers",
    "affordance_register_serializers",
]

ANTHROPIC_SDK_REQUIREMENT = "anthropic>=2,<3"
"""2.0.0 is the first ``anthropic`` release speaking API version 2026-10-21, the one whose
Messages fields this plugin reads and sends (JSON outputs, ``tool_choice`` none, server-tool
blocks, refusal ``stop_details``); 3.x is an untested major."""

_SERIALIZERS = "affordance_anthropic.serializers"


@hookimpl
def affordance_register_providers() -> list[ProviderSpec]:
    return [
        ProviderSpec(
            name="anthropic",
            adapter="affordance_anthropic.adapter:AnthropicAdapter",
            sdk=ANTHROPIC_SDK_REQUIREMENT,
            description="Anthropic Messages via the anthropic SDK",
            api_key_env=("ANTHROPIC_API_KEY",),
        )
    ]


@hookimpl
def affordance_register_serializers() -> list[SerializerSpec]:
    return [
        SerializerSpec("anthropic", "tool", f"{_SERIALIZERS}:AnthropicToolSerializer"),
        SerializerSpec("anthropic", "tool_result", f"{_SERIALIZERS}:AnthropicToolResultSerializer"),
        SerializerSpec("anthropic", "output", f"{_SERIALIZERS}:AnthropicOutputSerializer"),
    ]
