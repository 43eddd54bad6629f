"""affordance-web-search: the ``web_search`` hosted tool, one typed result on every provider.

Attach :class:`WebSearchSection` (or :func:`web_search_tool` on any section) to a prompt; the
provider plugin declares it through this plugin's codec for that provider, and the answer's
citations come back as a :class:`WebSearchResult` in ``PromptResponse.hosted_outputs``.
Codecs: OpenAI Responses (``openai``), OpenAI Chat search models (``openai-chat``), Anthropic
(``anthropic``), Gemini (``google``); a setting a provider cannot honour raises
:class:`UnsupportedWebSearchConfigError` before any request.

Names resolve on first access (PEP 562), so discovering the plugin (importing
:mod:`affordance_web_search.plugin`) loads nothing but the entry module; nothing here ever
imports a provider SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "CONFIG_FIELDS": "affordance_web_search.config",
    "ContextSize": "affordance_web_search.config",
    "DomainFilter": "affordance_web_search.config",
    "GeoHint": "affordance_web_search.config",
    "WebSearchConfig": "affordance_web_search.config",
    "UnsupportedWebSearchConfigError": "affordance_web_search.errors",
    "RESULT_FIELDS": "affordance_web_search.result",
    "Citation": "affordance_web_search.result",
    "WebSearchResult": "affordance_web_search.result",
    "WebSearchSection": "affordance_web_search.section",
    "WEB_SEARCH_KIND": "affordance_web_search.plugin",
    "web_search_tool": "affordance_web_search.plugin",
}

__all__ = [
    "CONFIG_FIELDS",
    "RESULT_FIELDS",
    "WEB_SEARCH_KIND",
    "Citation",
    "ContextSize",
    "DomainFilter",
    "GeoHint",
    "UnsupportedWebSearchConfigError",
    "WebSearchConfig",
    "WebSearchResult",
    "WebSearchSection",
    "__version__",
    "web_search_tool",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:
    from affordance_web_search.config import (
        CONFIG_FIELDS,
        ContextSize,
        DomainFilter,
        GeoHint,
        WebSearchConfig,
    )
    from affordance_web_search.errors import UnsupportedWebSearchConfigError
    from affordance_web_search.plugin import WEB_SEARCH_KIND, web_search_tool
    from affordance_web_search.result import RESULT_FIELDS, Citation, WebSearchResult
    from affordance_web_search.section import WebSearchSection
