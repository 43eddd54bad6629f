"""The entry point of ``affordance-web-search``: the ``web_search`` kind, declared once, and its
hook implementations; its types and codecs are named by dotted path.

This module imports ``affordance`` and nothing else (the package ``__init__`` imports nothing
eagerly); the config, result and codecs are imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import hosted_kind_hooks
from affordance.tools import HostedKind

if TYPE_CHECKING:
    from affordance_web_search.config import WebSearchConfig

__all__ = [
    "CODECS",
    "WEB_SEARCH",
    "WEB_SEARCH_KIND",
    "affordance_register_codecs",
    "affordance_register_hosted_tool_kinds",
    "web_search_tool",
]

_PACKAGE = "affordance_web_search"

WEB_SEARCH: HostedKind[WebSearchConfig] = HostedKind(
    kind="web_search",
    config=f"{_PACKAGE}.config:WebSearchConfig",
    output=f"{_PACKAGE}.result:WebSearchResult",
    codecs={
        "openai": f"{_PACKAGE}.openai_responses:OpenAIWebSearchCodec",
        "openai-chat": f"{_PACKAGE}.openai_chat:OpenAIChatWebSearchCodec",
        "anthropic": f"{_PACKAGE}.anthropic_messages:AnthropicWebSearchCodec",
        "google": f"{_PACKAGE}.google_gemini:GoogleWebSearchCodec",
    },
    description="Provider-run web search with citations",
    tool_description="Search the web for current information and cite sources.",
    title="Web Search",
    guidance=(
        "You can search the web for current information. Search when the answer depends on "
        "recent events or facts you are unsure of, and cite the sources you use."
    ),
)
"""The ``web_search`` kind: its types, its codec for every provider, its tool and section text."""

WEB_SEARCH_KIND = WEB_SEARCH.kind

CODECS = WEB_SEARCH.codecs
"""Codec provider -> the codec class, for every provider this plugin supports."""

web_search_tool = WEB_SEARCH.tool
"""A ``web_search`` hosted tool (``config``, ``name``, ``description``); its output is a
:class:`~affordance_web_search.WebSearchResult` in ``PromptResponse.hosted_outputs[name]``."""

affordance_register_hosted_tool_kinds, affordance_register_codecs = hosted_kind_hooks(WEB_SEARCH)
