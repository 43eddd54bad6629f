"""The entry point of ``affordance-web-search``: the ``web_search`` kind and its codec for each
provider, named by dotted path.

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

_PACKAGE = "affordance_web_search"

CODECS: dict[str, str] = {
    "openai": f"{_PACKAGE}.openai_responses:OpenAIWebSearchCodec",
    "openai-chat": f"{_PACKAGE}.openai_chat:OpenAIChatWebSearchCodec",
    "anthropic": f"{_PACKAGE}.anthropic_messages:AnthropicWebSearchCodec",
    "google": f"{_PACKAGE}.google_gemini:GoogleWebSearchCodec",
}
"""Codec provider -> the codec class, for every provider this plugin supports."""


@hookimpl
def affordance_register_hosted_tool_kinds() -> list[HostedToolKindSpec]:
    return [
        HostedToolKindSpec(
            kind="web_search",
            config=f"{_PACKAGE}.config:WebSearchConfig",
            output=f"{_PACKAGE}.result:WebSearchResult",
            description="Provider-run web search with citations",
        )
    ]


@hookimpl
def affordance_register_codecs() -> list[CodecSpec]:
    return [
        CodecSpec(provider=provider, kind="web_search", factory=factory)
        for provider, factory in CODECS.items()
    ]
