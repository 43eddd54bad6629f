"""OpenAI Responses API: the ``web_search`` tool entry, and the result read from ``output``.

Request (an entry of ``tools``)::

    {"type": "web_search", "filters": {"allowed_domains": [...]},
     "user_location": {"type": "approximate", "country": "GB", "city": "London", ...},
     "external_web_access": false, "search_context_size": "high"}

Request extras: ``{"include": ["web_search_call.action.sources"]}`` (:meth:`request_extras`).

Response: ``web_search_call`` items (``action.query``/``queries``, and ``action.sources``, which
Responses sends only when the request's ``include`` asks for them), then ``message`` items whose
``output_text`` parts carry ``url_citation`` annotations with character offsets into the part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_web_search._wire import indexed_span, string, unique
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.errors import refuse_unhonoured
from affordance_web_search.result import Citation, WebSearchResult

__all__ = ["OpenAIWebSearchCodec"]


class OpenAIWebSearchCodec:
    """``web_search`` on OpenAI's Responses API (codec provider ``openai``)."""

    kind = "web_search"
    provider: ClassVar[str] = "openai"
    honours: ClassVar[Mapping[str, str]] = {
        "domain_filter.allowed": "`filters.allowed_domains`",
        "geo_hint": "`user_location` (flat)",
        "allow_live_access": "`external_web_access: false`",
        "context_size": "`search_context_size`",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`output_text` parts",
        "citations.url": "`url_citation.url`",
        "citations.title": "`url_citation.title`",
        "citations.span": "`start_index`/`end_index`",
        "source_urls": "`action.sources` (the codec includes them), cited URLs",
        "queries": "`action.query`/`queries`",
        "errors": "`status: failed`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "No blocked-domain list and no per-tool search limit exist on this API "
            "(`max_tool_calls` caps every built-in tool of the response)."
        ),
        (
            "`source_urls` lists every consulted URL: the codec asks for "
            '`include: ["web_search_call.action.sources"]` (its `request_extras`; an `include` '
            "of your own in `extra_body` replaces it; then only cited URLs and opened pages)."
        ),
        "No source excerpts.",
    )

    def serialize(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        spec: dict[str, Any] = {"type": "web_search"}
        if config.domain_filter is not None and config.domain_filter.allowed:
            spec["filters"] = {"allowed_domains": list(config.domain_filter.allowed)}
        if config.geo_hint is not None:
            fields = config.geo_hint.fields()
            location: dict[str, Any] = {"type": "approximate"}
            if "country_code" in fields:
                location["country"] = fields.pop("country_code")
            location.update(fields)
            spec["user_location"] = location
        if not config.allow_live_access:
            spec["external_web_access"] = False
        if config.context_size is not None:
            spec["search_context_size"] = config.context_size
        return spec

    def request_extras(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        """Responses reports the sources a search consulted only when asked to."""
        return {"include": ["web_search_call.action.sources"]}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[WebSearchConfig]
    ) -> WebSearchResult | None:
        with ItemReader(tool, self.provider) as read:
            items = list(read.objects(response_items, ("output",)))
            calls = [(i, item) for i, item in items if item.get("type") == "web_search_call"]
            if not calls:
                return None
            texts: list[str] = []
            citations: list[Citation] = []
            offset = 0
            for index, item in items:
                if item.get("type") != "message":
                    continue
                content = ("output", index, "content")
                for number, part in read.objects(item.get("content"), content):
                    if part.get("type") != "output_text":
                        continue
                    text = read.text(part.get("text"), (*content, number, "text"))
                    annotations = (*content, number, "annotations")
                    citations.extend(
                        _citations(part.get("annotations"), text, offset, read, annotations)
                    )
                    texts.append(text or "")
                    offset += len(text or "")
            queries: list[str | None] = []
            consulted: list[str | None] = []
            errors: list[str] = []
            for index, call in calls:
                action = call.get("action")
                if isinstance(action, Mapping):
                    where = ("output", index, "action")
                    queries.append(string(action, "query"))
                    queries.extend(read.strings(action.get("queries"), (*where, "queries")))
                    consulted.append(string(action, "url"))  # open_page / find_in_page
                    consulted.extend(_sources(action.get("sources"), read, (*where, "sources")))
                if call.get("status") == "failed":
                    errors.append("failed")
            return WebSearchResult(
                text="".join(texts),
                citations=tuple(citations),
                source_urls=unique([*consulted, *(c.url for c in citations)]),
                queries=unique(queries),
                errors=tuple(errors),
            )


def _citations(
    annotations: Any, text: str | None, offset: int, read: ItemReader, position: Position
) -> list[Citation]:
    """The ``url_citation`` annotations of a text part, spans shifted by ``offset`` (the
    length of the parts before it); no spans when the part has no text."""
    found: list[Citation] = []
    for index, annotation in read.objects(annotations, position):
        if annotation.get("type") != "url_citation":
            continue  # file citations and others: not web sources
        url = string(annotation, "url")
        if url is None:
            read.skip((*position, index), "no url")
            continue
        found.append(
            Citation(
                url=url,
                title=string(annotation, "title"),
                span=indexed_span(annotation, text, offset),
            )
        )
    return found


def _sources(sources: Any, read: ItemReader, position: Position) -> list[str]:
    """The URLs of ``action.sources``; a source of another type (``api``) has none."""
    urls: list[str] = []
    for index, source in read.objects(sources, position):
        url = string(source, "url")
        if url is not None:
            urls.append(url)
        elif source.get("type", "url") == "url":
            read.skip((*position, index), "no url")
    return urls
