"""The entry point of ``affordance-openai``: the provider and its serializers, by dotted path
only, so discovering the plugin never imports the ``openai`` SDK (this imports ``affordance``).
"""

from __future__ import annotations

from affordance.plugins import ProviderSpec, SerializerSpec, hookimpl

__all__ = [
    "OPENAI_SDK_REQUIREMENT",
    "affordance_register_providers",
    "affordance_register_serializers",
]

OPENAI_SDK_REQUIREMENT = "openai>=1.66,<4"
"""1.66.0 is the first ``openai`` release with the Responses API; 4.x is an untested major."""

_SERIALIZERS = "affordance_openai.serializers"


@hookimpl
def affordance_register_providers() -> list[ProviderSpec]:
    return [
        ProviderSpec(
            name="openai",
            adapter="affordance_openai.adapter:OpenAIAdapter",
            sdk=OPENAI_SDK_REQUIREMENT,
            description="OpenAI Responses (default) and Chat Completions via the openai SDK",
            api_key_env=("OPENAI_API_KEY",),
        )
    ]


@hookimpl
def affordance_register_serializers() -> list[SerializerSpec]:
    return [
        SerializerSpec("openai", "tool", f"{_SERIALIZERS}:OpenAIToolSerializer"),
        SerializerSpec("openai", "tool_result", f"{_SERIALIZERS}:OpenAIToolResultSerializer"),
        SerializerSpec("openai", "output", f"{_SERIALIZERS}:OpenAIOutputSerializer"),
    ]
