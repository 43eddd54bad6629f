"""The entry point of ``affordance-code-interpreter``: the ``code_interpreter`` kind and its
codec for each provider that has one, named by dotted path.

This module imports ``affordance`` and nothing else (the package ``__init__`` imports nothing
eagerly); codecs are imported when first used.
"""

from __future__ import annotations

from affordance.plugins import CodecSpec, HostedToolKindSpec, hookimpl

__all__ = [
    "CODECS",
    "affordance_register_codecs",
    "affordance_register_hosted_tool_kinds",
]

_PACKAGE = "affordance_code_interpreter"

CODECS: dict[str, str] = {
    "openai": f"{_PACKAGE}.openai_responses:OpenAICodeInterpreterCodec",
    "anthropic": f"{_PACKAGE}.anthropic_messages:AnthropicCodeInterpreterCodec",
    "google": f"{_PACKAGE}.google_gemini:GoogleCodeInterpreterCodec",
}
"""Codec provider -> the codec class (OpenAI Chat, ``openai-chat``, has no code interpreter)."""


@hookimpl
def affordance_register_hosted_tool_kinds() -> list[HostedToolKindSpec]:
    return [
        HostedToolKindSpec(
            kind="code_interpreter",
            config=f"{_PACKAGE}.config:CodeInterpreterConfig",
            output=f"{_PACKAGE}.result:CodeInterpreterResult",
            description="Provider-run code execution in a sandbox",
        )
    ]


@hookimpl
def affordance_register_codecs() -> list[CodecSpec]:
    return [
        CodecSpec(provider=provider, kind="code_interpreter", factory=factory)
        for provider, factory in CODECS.items()
    ]
