"""The entry point of ``affordance-google``: the provider and its serializers by dotted path, so
discovering the plugin never imports the ``google-genai`` SDK (this module imports only core)."""

from __future__ import annotations

from affordance.plugins import ProviderSpec, SerializerSpec, hookimpl

__all__ = [
    "API_KEY_VARIABLES",
    "GOOGLE_SDK_REQUIREMENT",
    "affordance_register_providers",
    "affordance_register_serializers",
]

GOOGLE_SDK_REQUIREMENT = "google-genai>=1.39,<4"
"""Why this range: ``specs/adapters/google.md``, "SDK range and matrix"."""

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
