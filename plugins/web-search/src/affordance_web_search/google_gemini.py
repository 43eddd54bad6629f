"""Google Gemini: ``googleSearch`` grounding, and citations from grounding metadata.

Request (an entry of ``tools``): ``{"googleSearch": {}}``; Gemini offers no domain filter,
search limit or user location for it.

The adapter hands the codec one item: the first candidate (camelCase; a streamed one with its
parts merged and the last chunk's metadata). Its
``content.parts`` hold the answer text; ``groundingMetadata`` holds ``webSearchQueries``,
``groundingChunks`` (``web: {uri, title}``) and ``groundingSupports``, each a ``segment``
(``partIndex``, ``startIndex``, ``endIndex``, ``text``) backed by ``groundingChunkIndices``.
Segment offsets are **UTF-8 byte** offsets (start inclusive, end exclusive), converted here to
character offsets into the concatenated text through one table built in one pass over it, then
checked against ``segment.text`` (looked for near the span when they disagree), so a response's
work is linear in its size: 10,000 supports over 200 KB take about 0.1 s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_web_search._wire import Utf8Offsets, integer, nearest, string, unique
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
        items: Sequence[object] = response_items  # a hostile list may hold anything
        candidate = next(
            (i for i in items if isinstance(i, Mapping) and isinstance(i.get("content"), dict)),
            None,
        )
        metadata = None if candidate is None else candidate.get("groundingMetadata")
        if candidate is None or not isinstance(metadata, dict):
            return None
        with ItemReader(tool, self.provider) as read:
            return _result(candidate, metadata, read)


_METADATA: Position = ("candidate", "groundingMetadata")

SEGMENT_SEARCH_REACH = 1_000
"""How far (in characters, either side) a segment's ``text`` is looked for when its offsets do
not match it: far enough for offsets a few characters off, near enough that a response's work
stays linear in its size however many supports it has."""


def _result(
    candidate: Mapping[str, Any], metadata: Mapping[str, Any], read: ItemReader
) -> WebSearchResult | None:
    """The result of a candidate with grounding metadata; None when it shows no search."""
    listed = read.elements(metadata.get("groundingChunks"), (*_METADATA, "groundingChunks"))
    chunks = [
        _web(chunk, (*_METADATA, "groundingChunks", index), read)
        for index, chunk in enumerate(listed)
    ]
    queries = list(read.strings(metadata.get("webSearchQueries"), (*_METADATA, "webSearchQueries")))
    if not listed and not queries:
        return None
    text, part_starts = _text(candidate, read)
    offsets = Utf8Offsets(text)
    citations: list[Citation] = []
    supports = (*_METADATA, "groundingSupports")
    listed_supports = metadata.get("groundingSupports") if chunks else None  # none to cite
    for index, support in read.objects(listed_supports, supports):
        segment = support.get("segment")
        if not isinstance(segment, Mapping):
            read.skip((*supports, index, "segment"), "not an object")
            continue
        span = _span(segment, text, offsets, part_starts, read, (*supports, index, "segment"))
        cited = (*supports, index, "groundingChunkIndices")
        for position, chunk_index in enumerate(
            read.elements(support.get("groundingChunkIndices"), cited)
        ):
            if integer(chunk_index) is None:
                read.skip((*cited, position), "not an integer")
            elif not 0 <= chunk_index < len(chunks):
                read.skip((*cited, position), "index out of range")
            elif (web := chunks[chunk_index]) is not None:
                citations.append(Citation(url=web[0], title=web[1], span=span))
    return WebSearchResult(
        text=text,
        citations=tuple(citations),
        source_urls=unique(web[0] for web in chunks if web is not None),
        queries=unique(queries),
    )


def _web(chunk: Any, position: Position, read: ItemReader) -> tuple[str, str | None] | None:
    """A grounding chunk's web source, ``(uri, title)``; None for a chunk of another kind
    (``retrievedContext``, ``maps``) and for one that cannot be read (skipped)."""
    if not isinstance(chunk, Mapping):
        read.skip(position, "not an object")
        return None
    web = chunk.get("web")
    if web is None:
        return None
    if not isinstance(web, Mapping):
        read.skip((*position, "web"), "not an object")
        return None
    url = string(web, "uri")
    if url is None:
        read.skip((*position, "web"), "no uri")
        return None
    return url, string(web, "title")


def _text(candidate: Mapping[str, Any], read: ItemReader) -> tuple[str, dict[int, int]]:
    """The answer text (non-thought text parts, joined) and each text part's UTF-8 byte
    offset in it, by part index."""
    content = candidate.get("content")
    parts = content.get("parts") if isinstance(content, Mapping) else None
    texts: list[str] = []
    starts: dict[int, int] = {}
    offset = 0
    for index, part in read.objects(parts, ("candidate", "content", "parts")):
        text = part.get("text")
        if part.get("thought") or not isinstance(text, str):
            continue
        starts[index] = offset
        texts.append(text)
        offset += len(text.encode("utf-8", errors="surrogatepass"))
    return "".join(texts), starts


def _span(
    segment: Mapping[str, Any],
    text: str,
    offsets: Utf8Offsets,
    part_starts: Mapping[int, int],
    read: ItemReader,
    position: Position,
) -> tuple[int, int] | None:
    """A segment's character span in ``text``: its byte offsets (relative to part
    ``partIndex``, absent meaning 0) converted, then confirmed by ``segment.text`` when given
    (the nearest occurrence of that text within :data:`SEGMENT_SEARCH_REACH` wins over
    offsets that do not match it)."""
    part_index = integer(segment.get("partIndex"))
    base = 0 if part_index is None else part_starts.get(part_index, 0)
    start_byte, end_byte = segment.get("startIndex", 0), segment.get("endIndex")
    if end_byte is None:
        return None
    start_byte = 0 if start_byte is None else integer(start_byte)
    if start_byte is None or integer(end_byte) is None:
        read.skip(position, "offsets are not integers; the span is left out")
        return None
    start = offsets.character(base + start_byte)
    end = max(offsets.character(base + end_byte), start)
    expected = string(segment, "text")
    if expected is not None and not (
        end - start == len(expected) and text.startswith(expected, start)
    ):
        found = nearest(text, expected, start, SEGMENT_SEARCH_REACH)
        if found is not None:
            return found, found + len(expected)
    return start, end
