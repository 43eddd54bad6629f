"""Anthropic Messages: the versioned ``web_search`` server tool, and the cited answer.

Request (an entry of ``tools``)::

    {"type": "web_search_20250305", "name": "web_search", "max_uses": 5,
     "allowed_domains": [...] | "blocked_domains": [...],
     "user_location": {"type": "approximate", "city": ..., "region": ..., "country": ...,
                       "timezone": ...}}

Response: content blocks in order. ``server_tool_use`` (``name: web_search``, ``input.query``),
``web_search_tool_result`` (a list of ``web_search_result`` {url, title}, or an error object
with ``error_code``), and ``text`` blocks whose ``citations`` (``web_search_result_location``)
have no offsets: a citation backs its whole text block, located by the block's position in
the concatenated text. ``cited_text`` is the excerpt of the source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader
from affordance_web_search._wire import string, unique
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.errors import UnsupportedWebSearchConfigError, refuse_unhonoured
from affordance_web_search.result import Citation, WebSearchResult

__all__ = ["ANTHROPIC_WEB_SEARCH_TYPE", "AnthropicWebSearchCodec"]

ANTHROPIC_WEB_SEARCH_TYPE = "web_search_20250305"
"""The server tool version declared; every later version reads back the same blocks."""

_SERVER_TOOL_NAME = "web_search"


class AnthropicWebSearchCodec:
    """``web_search`` on Anthropic's Messages API (codec provider ``anthropic``)."""

    kind = "web_search"
    provider: ClassVar[str] = "anthropic"
    honours: ClassVar[Mapping[str, str]] = {
        "domain_filter.allowed": "`allowed_domains` (not with blocked)",
        "domain_filter.blocked": "`blocked_domains` (not with allowed)",
        "geo_hint": "`user_location`",
        "max_uses": "`max_uses`",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`text` blocks",
        "citations.url": "`web_search_result_location.url`",
        "citations.title": "`title` (may be null)",
        "citations.span": "the whole cited text block",
        "citations.excerpt": "`cited_text`",
        "source_urls": "`web_search_result.url`, cited URLs",
        "queries": "`server_tool_use.input.query`",
        "errors": "`web_search_tool_result_error.error_code`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        "Allowed and blocked domains are mutually exclusive: setting both is an error.",
        "Citations carry no offsets: each backs its whole text block, so spans are block-sized.",
        (
            "The server tool is always named `web_search` on the wire (one web search tool per "
            "request); the output is keyed by the hosted tool's own name."
        ),
        "No cache-only mode and no context size.",
    )

    def serialize(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        spec: dict[str, Any] = {"type": ANTHROPIC_WEB_SEARCH_TYPE, "name": _SERVER_TOOL_NAME}
        if config.max_uses is not None:
            spec["max_uses"] = config.max_uses
        domains = config.domain_filter
        if domains is not None and domains.allowed and domains.blocked:
            raise UnsupportedWebSearchConfigError(
                f"web search tool {tool.name!r} sets both domain_filter.allowed and "
                "domain_filter.blocked; provider 'anthropic' takes one or the other",
                field="domain_filter.blocked",
                provider=self.provider,
                tool_name=tool.name,
            )
        if domains is not None and domains.allowed:
            spec["allowed_domains"] = list(domains.allowed)
        if domains is not None and domains.blocked:
            spec["blocked_domains"] = list(domains.blocked)
        if config.geo_hint is not None:
            fields = config.geo_hint.fields()
            location: dict[str, Any] = {"type": "approximate"}
            if "country_code" in fields:
                location["country"] = fields.pop("country_code")
            location.update(fields)
            spec["user_location"] = location
        return spec

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[WebSearchConfig]
    ) -> WebSearchResult | None:
        with ItemReader(tool, self.provider) as read:
            blocks = list(read.objects(response_items, ("content",)))
            searches = [
                block
                for _, block in blocks
                if block.get("type") == "server_tool_use" and block.get("name") == _SERVER_TOOL_NAME
            ]
            results = [(i, b) for i, b in blocks if b.get("type") == "web_search_tool_result"]
            if not searches and not results:
                return None
            texts: list[str] = []
            citations: list[Citation] = []
            offset = 0
            for index, block in blocks:
                if block.get("type") != "text":
                    continue
                text = read.text(block.get("text"), ("content", index, "text"))
                span = None if text is None else (offset, offset + len(text))
                position = ("content", index, "citations")
                for number, cited in read.objects(block.get("citations"), position):
                    if cited.get("type") != "web_search_result_location":
                        continue  # document and search-result citations: not web sources
                    url = string(cited, "url")
                    if url is None:
                        read.skip((*position, number), "no url")
                        continue
                    citations.append(
                        Citation(
                            url=url,
                            title=string(cited, "title"),
                            span=span,
                            excerpt=string(cited, "cited_text"),
                        )
                    )
                texts.append(text or "")
                offset += len(text or "")
            consulted: list[str] = []
            errors: list[str] = []
            for index, result in results:
                content = result.get("content")
                if isinstance(content, Mapping):
                    errors.append(string(content, "error_code") or "error")
                    continue
                position = ("content", index, "content")
                for number, found in read.objects(content, position):
                    url = string(found, "url")
                    if url is None:
                        read.skip((*position, number), "no url")
                    else:
                        consulted.append(url)
            queries = [
                string(search["input"], "query")
                for search in searches
                if isinstance(search.get("input"), Mapping)
            ]
            return WebSearchResult(
                text="".join(texts),
                citations=tuple(citations),
                source_urls=unique([*consulted, *(c.url for c in citations)]),
                queries=unique(queries),
                errors=tuple(errors),
            )
