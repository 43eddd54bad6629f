"""Google Gemini: ``googleSearch`` grounding, and citations from grounding metadata.

Request (an entry of ``tools``): ``{"googleSearch": {}}``; Gemini offers no domain filter,
search limit or user location for it.

The codec contract hands the codec one item: the first candidate as sent (camelCase). Its
``content.parts`` hold the answer text; ``groundingMetadata`` holds ``webSearchQueries``,
``groundingChunks`` (``web: {uri, title}``) and ``groundingSupports``, each a ``segment``
(``partIndex``, ``startIndex``, ``endIndex``, ``text``) backed by ``groundingChunkIndices``.
Segment offsets are **UTF-8 byte** offsets (start inclusive, end exclusive), converted here to
character offsets into the concatenated text, then checked against ``segment.text``.

The Google adapter (affordance-google 0.1.0) hands over parts and ``{"groundingMetadata":
...}`` as separate items instead, without the text parts; both shapes are read (see
:func:`candidate_view`), but without the text there is nothing to slice: ``text`` is empty and
citations have no span.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools.hosted import HostedTool
from affordance_web_search._wire import char_offset, nearest, string, unique
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.errors import refuse_unhonoured
from affordance_web_search.result import Citation, WebSearchResult

__all__ = ["GoogleWebSearchCodec", "candidate_view"]


class GoogleWebSearchCodec:
    """``web_search`` on Gemini through Google Search grounding (codec provider ``google``)."""

    kind = "web_search"
    provider: ClassVar[str] = "google"
    honours: ClassVar[Mapping[str, str]] = {}
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`content.parts[].text`",
        "citations.url": "`groundingChunks[].web.uri`",
        "citations.title": "`groundingChunks[].web.title`",
        "citations.span": "`groundingSupports[].segment` (bytes → characters)",
        "source_urls": "`groundingChunks[].web.uri`",
        "queries": "`webSearchQueries`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "Nothing is configurable on the Gemini Developer API: any domain filter, location, "
            "search limit, cache-only mode or context size is an error."
        ),
        (
            "URLs are usually `vertexaisearch.cloud.google.com/grounding-api-redirect/...` links "
            "and titles are domains, as the API sends them."
        ),
        "A support backed by several chunks gives one citation per chunk, all with its span.",
        "No source excerpts and no search errors are reported.",
        (
            "affordance-google 0.1.0 hands codecs its hosted parts and the grounding metadata, "
            "not the candidate's text parts: through it `text` is empty and citations have no "
            "span (their URLs, titles, the sources and queries are read)."
        ),
    )

    def serialize(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        return {"googleSearch": {}}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[WebSearchConfig]
    ) -> WebSearchResult | None:
        parts, metadata = candidate_view(response_items)
        if metadata is None:
            return None
        chunks = [c for c in metadata.get("groundingChunks") or () if isinstance(c, dict)]
        queries = [q for q in metadata.get("webSearchQueries") or () if isinstance(q, str)]
        if not chunks and not queries:
            return None
        text, part_starts = _text(parts)
        encoded = text.encode("utf-8")
        citations: list[Citation] = []
        for support in metadata.get("groundingSupports") or ():
            if not isinstance(support, dict) or not isinstance(support.get("segment"), dict):
                continue
            span = _span(support["segment"], text, encoded, part_starts) if part_starts else None
            for index in support.get("groundingChunkIndices") or ():
                if not isinstance(index, int) or not 0 <= index < len(chunks):
                    continue
                web = chunks[index].get("web")
                url = string(web, "uri") if isinstance(web, dict) else None
                if url is not None and isinstance(web, dict):
                    citations.append(Citation(url=url, title=string(web, "title"), span=span))
        sources = [
            string(chunk["web"], "uri") for chunk in chunks if isinstance(chunk.get("web"), dict)
        ]
        return WebSearchResult(
            text=text,
            citations=tuple(citations),
            source_urls=unique(sources),
            queries=unique(queries),
        )


def candidate_view(
    items: Sequence[Mapping[str, Any]],
) -> tuple[list[Mapping[str, Any]], Mapping[str, Any] | None]:
    """The candidate's parts and its grounding metadata, from the first candidate (the codec
    contract) or else from parts and a ``{"groundingMetadata": ...}`` handed over as separate
    items (what affordance-google 0.1.0 sends)."""
    for item in items:
        content = item.get("content")
        if isinstance(content, dict):
            metadata = item.get("groundingMetadata")
            parts = content.get("parts")
            return (
                [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else [],
                metadata if isinstance(metadata, dict) else None,
            )
    found = [i["groundingMetadata"] for i in items if isinstance(i.get("groundingMetadata"), dict)]
    return [i for i in items if "groundingMetadata" not in i], found[-1] if found else None


def _text(parts: Sequence[Mapping[str, Any]]) -> tuple[str, dict[int, int]]:
    """The answer text (non-thought text parts, joined) and each text part's UTF-8 byte
    offset in it, by part index (empty when no text part was handed over)."""
    texts: list[str] = []
    starts: dict[int, int] = {}
    offset = 0
    for index, part in enumerate(parts):
        if part.get("thought") or not isinstance(part.get("text"), str):
            continue
        starts[index] = offset
        texts.append(part["text"])
        offset += len(part["text"].encode("utf-8"))
    return "".join(texts), starts


def _span(
    segment: Mapping[str, Any], text: str, encoded: bytes, part_starts: Mapping[int, int]
) -> tuple[int, int] | None:
    """A segment's character span in ``text``: its byte offsets (relative to part
    ``partIndex``, absent meaning 0) converted, then confirmed by ``segment.text`` when given
    (the nearest occurrence of that text wins over offsets that do not match it)."""
    part_index = segment.get("partIndex") or 0
    base = part_starts.get(part_index, 0) if isinstance(part_index, int) else 0
    start_byte, end_byte = segment.get("startIndex") or 0, segment.get("endIndex")
    if not isinstance(start_byte, int) or not isinstance(end_byte, int):
        return None
    start = char_offset(encoded, base + start_byte)
    end = max(char_offset(encoded, base + end_byte), start)
    expected = string(segment, "text")
    if expected is not None and text[start:end] != expected:
        found = nearest(text, expected, start)
        if found is not None:
            return found, found + len(expected)
    return start, end
