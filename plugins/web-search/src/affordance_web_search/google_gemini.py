"""Google Gemini: ``googleSearch`` grounding, and citations from grounding metadata.

Request (an entry of ``tools``): ``{"googleSearch": {}}``; Gemini offers no domain filter,
search limit or user location for it.

The adapter hands the codec one item: the first candidate (camelCase; a streamed one with its
parts merged and the last chunk's metadata). Its
``content.parts`` hold the answer text; ``groundingMetadata`` holds ``webSearchQueries``,
``groundingChunks`` (``web: {uri, title}``) and ``groundingSupports``, each a ``segment``
(``partIndex``, ``startIndex``, ``endIndex``, ``text``) backed by ``groundingChunkIndices``.
Segment offsets are **UTF-8 byte** offsets (start inclusive, end exclusive), converted here to
character offsets into the concatenated text, then checked against ``segment.text``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools.hosted import HostedTool
from affordance_web_search._wire import char_offset, nearest, string, unique
from affordance_web_search.config import WebSearchConfig
from affordance_web_search.errors import refuse_unhonoured
from affordance_web_search.result import Citation, WebSearchResult

__all__ = ["GoogleWebSearchCodec"]


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
    )

    def serialize(self, tool: HostedTool[WebSearchConfig]) -> dict[str, Any]:
        refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        return {"googleSearch": {}}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[WebSearchConfig]
    ) -> WebSearchResult | None:
        candidate = next((i for i in response_items if isinstance(i.get("content"), dict)), None)
        metadata = None if candidate is None else candidate.get("groundingMetadata")
        if candidate is None or not isinstance(metadata, dict):
            return None
        chunks = [c for c in metadata.get("groundingChunks") or () if isinstance(c, dict)]
        queries = [q for q in metadata.get("webSearchQueries") or () if isinstance(q, str)]
        if not chunks and not queries:
            return None
        text, part_starts = _text(candidate)
        encoded = text.encode("utf-8")
        citations: list[Citation] = []
        for support in metadata.get("groundingSupports") or ():
            if not isinstance(support, dict) or not isinstance(support.get("segment"), dict):
                continue
            span = _span(support["segment"], text, encoded, part_starts)
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


def _text(candidate: Mapping[str, Any]) -> tuple[str, dict[int, int]]:
    """The answer text (non-thought text parts, joined) and each text part's UTF-8 byte
    offset in it, by part index."""
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    texts: list[str] = []
    starts: dict[int, int] = {}
    offset = 0
    for index, part in enumerate(parts if isinstance(parts, list) else ()):
        if (
            not isinstance(part, dict)
            or part.get("thought")
            or not isinstance(part.get("text"), str)
        ):
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
