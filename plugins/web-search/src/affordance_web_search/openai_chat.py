"""OpenAI Chat Completions (search models): ``web_search_options``, and the cited answer.

Chat has no tool entry for search: the codec returns request fields merged into the body::

    {"web_search_options": {"search_context_size": "high",
                            "user_location": {"type": "approximate",
                                              "approximate": {"country": "GB", ...}}}}

The adapter hands the codec one item, ``{"type": "message", "content": <answer text>,
"annotations": [...]}``, whose annotations are ``{"type": "url_citation", "url_citation":
{url, title, start_index, end_index}}`` with character offsets into the content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_web_search._wire import indexed_span, string, unique
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.errors import refuse_unhonoured
from affordance_web_search.result import Citation, WebSearchResult

__all__ = ["OpenAIChatWebSearchCodec"]


class OpenAIChatWebSearchCodec:
    """``web_search`` on OpenAI Chat Completions (codec provider ``openai-chat``)."""

    kind = "web_search"
    provider: ClassVar[str] = "openai-chat"
    honours: ClassVar[Mapping[str, str]] = {
        "geo_hint": "`user_location.approximate`",
        "context_size": "`search_context_size`",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`message.content`",
        "citations.url": "`url_citation.url`",
        "citations.title": "`url_citation.title`",
        "citations.span": "`start_index`/`end_index`",
        "source_urls": "cited URLs",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "Needs a search model (`gpt-4o-search-preview`, ...), which searches on every request: "
            "the answer is a result only when it cites something."
        ),
        (
            "No domain filter, search limit or cache-only mode; no queries, excerpts or search "
            "errors are reported, and `source_urls` holds only the cited URLs."
        ),
    )

    def serialize(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        options: dict[str, Any] = {}
        if config.context_size is not None:
            options["search_context_size"] = config.context_size
        if config.geo_hint is not None:
            fields = config.geo_hint.fields()
            approximate: dict[str, Any] = {}
            if "country_code" in fields:
                approximate["country"] = fields.pop("country_code")
            approximate.update(fields)
            options["user_location"] = {"type": "approximate", "approximate": approximate}
        return {"web_search_options": options}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[WebSearchConfig]
    ) -> WebSearchResult | None:
        texts: list[str] = []
        citations: list[Citation] = []
        unreadable = 0  # citations (or lists of them) skipped: the answer did cite something
        offset = 0
        with ItemReader(tool, self.provider) as read:
            for index, item in read.objects(response_items, ("message",)):
                if item.get("type") != "message":
                    continue
                root: Position = ("message",) if index == 0 else ("message", index)
                text = read.text(item.get("content"), (*root, "content"))
                annotations = (*root, "annotations")
                before = read.skipped
                for number, annotation in read.objects(item.get("annotations"), annotations):
                    if annotation.get("type") != "url_citation":
                        continue
                    cited = annotation.get("url_citation")
                    url = string(cited, "url") if isinstance(cited, Mapping) else None
                    if not isinstance(cited, Mapping) or url is None:
                        read.skip((*annotations, number), "no url_citation.url")
                        continue
                    citations.append(
                        Citation(
                            url=url,
                            title=string(cited, "title"),
                            span=indexed_span(cited, text, offset),
                        )
                    )
                unreadable += read.skipped - before
                texts.append(text or "")
                offset += len(text or "")
            if not citations and not unreadable:
                return None
        return WebSearchResult(
            text="".join(texts),
            citations=tuple(citations),
            source_urls=unique(citation.url for citation in citations),
        )
