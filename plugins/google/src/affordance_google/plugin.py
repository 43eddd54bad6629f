"""The entry point of ``affordance-google``: declares the provider and its serializers by dotted
path only.

This module imports ``affordance`` and nothing else, so discovering the plugin never imports
the ``google-genai`` SDK; the registry imports the adapter and the serializers on first use.
"""

from __future__ import annotations

from affordance.plugins import ProviderSpec, SerializerSpec, hookimpl

__all__ = [
    "API_KEY_VARIABLES",
    "GOOGLE_SDK_REQUIREMENT",
    "affordance_register_providers",
    "affordance_register_serializers",
]

GOOGLE_SDK_REQUIREMENT = "google-genai>=1.39,<4"
"""1.39.0 is the first ``google-genai`` release with all the plugin uses (``Client.close()`` /
``AsyncClient.aclose()``; ``parameters_json_schema`` and ``response_json_schema`` since 1.22);
4.x is an untested major."""

API_KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
"""Where ``genai.Client()`` reads a Developer API key."""

_SERIALIZERS = "affordance_google.serializers"


@hookimpl
def affordance_register_providers() -> list[ProviderSpec]:
    return [
        ProviderSpec(
            name="google",
            adapter="affordance_google.adapter:GoogleAdapter",
            sdk=GOOGLE_SDK_REQUIREMENT,
            description="Google Gemini (Developer API or Vertex AI) via the google-genai SDK",
            api_key_env=API_KEY_VARIABLES,
        )
    ]


@hookimpl
def affordance_register_serializers() -> list[SerializerSpec]:
    return [
        SerializerSpec("google", "tool", f"{_SERIALIZERS}:GoogleToolSerializer"),
        SerializerSpec("google", "tool_result", f"{_SERIALIZERS}:GoogleToolResultSerializer"),
        SerializerSpec("google", "output", f"{_SERIALIZERS}:GoogleOutputSerializer"),
    ]
