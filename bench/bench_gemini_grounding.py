"""Gemini grounding: 10,000 supports over a 200 KB answer, read by the ``web_search`` codec,
side by side with the previous implementation.

Run: `.venv/bin/python bench/bench_gemini_grounding.py [--supports 10000] [--kilobytes 200]`
(the dev venv has affordance-web-search; `python3 dev.py setup` makes it). Prints numbers;
asserts nothing.

Gemini's ``groundingSupports[].segment`` give UTF-8 *byte* offsets into the answer, and the
codec turns them into character offsets. The previous implementation (kept below, only to
measure against) decoded the answer's prefix for every offset and, when ``segment.text`` did
not match the converted span, searched the whole answer for every occurrence of that text: work
proportional to supports x answer size. The codec now converts offsets through one table built
in one pass over the answer and looks for a mismatching segment text only near its span
(``SEGMENT_SEARCH_REACH``). Three answers, each ``--kilobytes`` of UTF-8 in sentences of
text with emoji (multi-byte characters throughout), one support per 20-byte sentence:

- ``offsets agree``: every segment's offsets and text agree (the usual reply);
- ``offsets off, unique text``: every segment's offsets are 2 bytes late, each sentence
  different (every support searches for its text);
- ``offsets off, repeated text``: the same, but every sentence is the same (the previous
  search met every occurrence, one per sentence, for every support).

The codec is timed as the best of 3 readings, the previous implementation once (it takes up to
a minute). Each case also checks that both read the same result and that every support gave its
citation; a line starting with ``!`` says when not.

Standalone rather than a measure of `bench/run.py`: no peer framework reads Gemini grounding.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from affordance_web_search import Citation, WebSearchResult, web_search_tool
from affordance_web_search.google_gemini import GoogleWebSearchCodec

TOOL = web_search_tool()
CODEC = GoogleWebSearchCodec()
Reader = Callable[[Sequence[Mapping[str, Any]]], "WebSearchResult | None"]


# -- the previous implementation (as of 3fdc1b4), kept only to measure against ---------------


def previous_char_offset(encoded: bytes, byte_offset: int) -> int:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``_wire.char_offset``): decodes the prefix."""
    byte_offset = min(max(byte_offset, 0), len(encoded))
    return len(encoded[:byte_offset].decode("utf-8", errors="ignore"))


def previous_nearest(text: str, needle: str, around: int) -> int | None:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``_wire.nearest``): every occurrence in the text."""
    best: int | None = None
    found = text.find(needle)
    while found != -1:
        if best is None or abs(found - around) < abs(best - around):
            best = found
        found = text.find(needle, found + 1)
    return best


def previous_string(mapping: Mapping[str, Any], key: str) -> str | None:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``_wire.string``), unchanged since."""
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def previous_unique(values: Iterable[str | None]) -> tuple[str, ...]:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``_wire.unique``), unchanged since."""
    return tuple(dict.fromkeys(value for value in values if value))


def previous_parse_output(response_items: Sequence[Mapping[str, Any]]) -> WebSearchResult | None:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``GoogleWebSearchCodec.parse_output``), verbatim."""
    candidate = next((i for i in response_items if isinstance(i.get("content"), dict)), None)
    metadata = None if candidate is None else candidate.get("groundingMetadata")
    if candidate is None or not isinstance(metadata, dict):
        return None
    chunks = [c for c in metadata.get("groundingChunks") or () if isinstance(c, dict)]
    queries = [q for q in metadata.get("webSearchQueries") or () if isinstance(q, str)]
    if not chunks and not queries:
        return None
    text, part_starts = previous_text(candidate)
    encoded = text.encode("utf-8")
    citations: list[Citation] = []
    for support in metadata.get("groundingSupports") or ():
        if not isinstance(support, dict) or not isinstance(support.get("segment"), dict):
            continue
        span = previous_span(support["segment"], text, encoded, part_starts)
        for index in support.get("groundingChunkIndices") or ():
            if not isinstance(index, int) or not 0 <= index < len(chunks):
                continue
            web = chunks[index].get("web")
            url = previous_string(web, "uri") if isinstance(web, dict) else None
            if url is not None and isinstance(web, dict):
                citations.append(Citation(url=url, title=previous_string(web, "title"), span=span))
    sources = [
        previous_string(chunk["web"], "uri")
        for chunk in chunks
        if isinstance(chunk.get("web"), dict)
    ]
    return WebSearchResult(
        text=text,
        citations=tuple(citations),
        source_urls=previous_unique(sources),
        queries=previous_unique(queries),
    )


def previous_text(candidate: Mapping[str, Any]) -> tuple[str, dict[int, int]]:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``google_gemini._text``), verbatim."""
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


def previous_span(
    segment: Mapping[str, Any], text: str, encoded: bytes, part_starts: Mapping[int, int]
) -> tuple[int, int] | None:
    """PREVIOUS IMPLEMENTATION (3fdc1b4, ``google_gemini._span``), verbatim."""
    part_index = segment.get("partIndex") or 0
    base = part_starts.get(part_index, 0) if isinstance(part_index, int) else 0
    start_byte, end_byte = segment.get("startIndex") or 0, segment.get("endIndex")
    if not isinstance(start_byte, int) or not isinstance(end_byte, int):
        return None
    start = previous_char_offset(encoded, base + start_byte)
    end = max(previous_char_offset(encoded, base + end_byte), start)
    expected = previous_string(segment, "text")
    if expected is not None and text[start:end] != expected:
        found = previous_nearest(text, expected, start)
        if found is not None:
            return found, found + len(expected)
    return start, end


# -- the answers -------------------------------------------------------------------------------


def sentence(number: int, repeated: bool) -> str:
    """20 bytes of UTF-8 in 16 characters ('ß' is 2 bytes, '🚀' 4)."""
    return f"Maß {0 if repeated else number:05d} 🚀 ok. "


def candidate(supports: int, kilobytes: int, shift: int, repeated: bool) -> dict[str, Any]:
    """One text part of about ``kilobytes`` KB in ``supports`` sentences, a support each whose
    byte offsets are ``shift`` bytes late."""
    size = kilobytes * 1000
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    used = 0
    for number in range(supports):
        piece = sentence(number, repeated)
        pieces.append(piece)
        spans.append((used, used + len(piece.encode("utf-8"))))
        used += len(piece.encode("utf-8"))
    filler = max(size - used, 0)
    text = "".join(pieces) + "·" * (filler // 2)  # '·' is 2 bytes
    support_list = [
        {
            "segment": {"startIndex": start + shift, "endIndex": end + shift, "text": piece},
            "groundingChunkIndices": [number % 3],
        }
        for number, ((start, end), piece) in enumerate(zip(spans, pieces, strict=True))
    ]
    chunks = [{"web": {"uri": f"https://r.example/{n}", "title": f"r{n}"}} for n in range(3)]
    return {
        "content": {"role": "model", "parts": [{"text": text}]},
        "groundingMetadata": {
            "webSearchQueries": ["q"],
            "groundingChunks": chunks,
            "groundingSupports": support_list,
        },
    }


def current_parse_output(response_items: Sequence[Mapping[str, Any]]) -> WebSearchResult | None:
    """The codec as it is now."""
    return CODEC.parse_output(response_items, TOOL)


def timed(read: Reader, item: Mapping[str, Any], repeat: int) -> tuple[float, WebSearchResult]:
    """The best of ``repeat`` readings of ``item``, and what it read."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = read([item])
        best = min(best, time.perf_counter() - started)
    assert result is not None
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--supports", type=int, default=10_000)
    parser.add_argument("--kilobytes", type=int, default=200)
    parser.add_argument("--skip-previous", action="store_true", help="time the codec only")
    options = parser.parse_args()

    print(f"Python {platform.python_version()} on {platform.machine()}; {sys.platform}")
    print(f"{options.supports:,} supports over {options.kilobytes} KB of UTF-8\n")
    print("| answer | previous (s) | now (ms) | previous ÷ now |")
    print("|---|---:|---:|---:|")
    cases = {
        "offsets agree": (0, False),
        "offsets off, unique text": (2, False),
        "offsets off, repeated text": (2, True),
    }
    for name, (shift, repeated) in cases.items():
        item = candidate(options.supports, options.kilobytes, shift, repeated)
        now, result = timed(current_parse_output, item, repeat=3)
        if len(result.citations) != options.supports:
            print(f"  ! {name}: {len(result.citations)} citations")
        if options.skip_previous:
            print(f"| {name} | · | {now * 1e3:.1f} | · |")
            continue
        before, previous = timed(previous_parse_output, item, repeat=1)
        if previous != result:
            print(f"  ! {name}: the previous implementation read something else")
        print(f"| {name} | {before:.2f} | {now * 1e3:.1f} | {before / now:,.0f}x |")


if __name__ == "__main__":
    main()
