"""The ``web_search`` codecs on hostile responses: a malformed citation, source, chunk or list is
skipped with a metadata-only warning on ``affordance.hosted`` and the rest of the output
survives, on every provider; Gemini's byte offsets map to characters in linear time, clamped."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from loopback import grounding_support, utf8_offsets

from affordance.tools.hosted_items import MAX_WARNINGS
from affordance_web_search import WebSearchResult, web_search_tool
from affordance_web_search.anthropic_messages import AnthropicWebSearchCodec
from affordance_web_search.google_gemini import SEGMENT_SEARCH_REACH, GoogleWebSearchCodec
from affordance_web_search.openai_chat import OpenAIChatWebSearchCodec
from affordance_web_search.openai_responses import OpenAIWebSearchCodec

CODECS: dict[str, Any] = {
    "openai": OpenAIWebSearchCodec(),
    "openai-chat": OpenAIChatWebSearchCodec(),
    "anthropic": AnthropicWebSearchCodec(),
    "google": GoogleWebSearchCodec(),
}
TOOL = web_search_tool()

FIRST, SECOND = "Zürich: sonnig. ", "Morgen Regen 🌧."
TEXT = FIRST + SECOND
A, B, C = "https://a.example/sun", "https://b.example/rain", "https://c.example/more"
LEAK_URL, LEAK_TEXT = "https://leak.example/secret-path", "a leaked passage"
"""What a malformed item carries: neither may reach a log record."""


def hosted_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The ``affordance.hosted`` records, each checked to hold no content of a bad item."""
    records = [r for r in caplog.records if r.name == "affordance.hosted"]
    for record in records:
        assert record.levelno == logging.WARNING
        everything = record.getMessage() + repr(vars(record))
        assert LEAK_URL not in everything
        assert LEAK_TEXT not in everything
        assert "leak" not in everything
    return records


def skipped(caplog: pytest.LogCaptureFixture, provider: str) -> list[tuple[str, str]]:
    """``(position, problem)`` of each item skipped, after checking the records' metadata."""
    found = []
    for record in hosted_warnings(caplog):
        fields = vars(record)
        assert fields["affordance_kind"] == "web_search"
        assert fields["affordance_provider"] == provider
        assert fields["affordance_hosted_tool"] == "web_search"
        found.append((fields["affordance_item"], fields["affordance_problem"]))
    return found


def read(provider: str, items: list[Any], caplog: pytest.LogCaptureFixture) -> WebSearchResult:
    with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
        result = CODECS[provider].parse_output(items, TOOL)
    assert isinstance(result, WebSearchResult)
    return result


# -- OpenAI Responses, OpenAI Chat and Anthropic: citations listed on text segments --------------

CITING = ("openai", "openai-chat", "anthropic")


def citation(provider: str, url: Any, span: tuple[int, int], title: Any = "T") -> dict[str, Any]:
    """A web citation as ``provider`` writes it (Anthropic's carry no offsets)."""
    start, end = span
    if provider == "openai":
        return {
            "type": "url_citation",
            "url": url,
            "title": title,
            "start_index": start,
            "end_index": end,
        }
    if provider == "openai-chat":
        cited = {"url": url, "title": title, "start_index": start, "end_index": end}
        return {"type": "url_citation", "url_citation": cited}
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "cited_text": "passage",
        "encrypted_index": "x",
    }


def response(provider: str, first: Any, *, sources: Any = None) -> list[Any]:
    """A searched answer of two text segments: ``FIRST`` citing ``first`` (as given, however
    malformed) and ``SECOND`` citing ``B``; ``sources`` the searched sources' list."""
    second = [citation(provider, B, (7, 15))]
    if provider == "openai":
        action = {"type": "search", "query": "wetter", "sources": sources}
        return [
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": action},
            {
                "type": "message",
                "content": [
                    {"type": "output_text", "text": FIRST, "annotations": first},
                    {"type": "output_text", "text": SECOND, "annotations": second},
                ],
            },
        ]
    if provider == "openai-chat":  # its adapter hands one message; the codec reads every one
        return [
            {"type": "message", "content": FIRST, "annotations": first},
            {"type": "message", "content": SECOND, "annotations": second},
        ]
    return [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": sources},
        {"type": "text", "text": FIRST, "citations": first},
        {"type": "text", "text": SECOND, "citations": second},
    ]


FIRST_CITATIONS = {
    "openai": "output[1].content[0].annotations",
    "openai-chat": "message.annotations",
    "anthropic": "content[2].citations",
}
"""Where each provider's response above lists ``FIRST``'s citations."""

NO_URL = {"openai": "no url", "openai-chat": "no url_citation.url", "anthropic": "no url"}


def bad_citation(provider: str, kind: str) -> Any:
    return {
        "a bare URL string": LEAK_URL,
        "a number": 7,
        "null": None,
        "a url that is a list": citation(provider, [LEAK_URL], (0, 3), title=LEAK_TEXT),
        "no url": citation(provider, None, (0, 3), title=LEAK_TEXT),
    }[kind]


def bad_problem(provider: str, kind: str) -> str:
    return NO_URL[provider] if "url" in kind and "string" not in kind else "not an object"


def expected_spans(provider: str) -> list[tuple[int, int]]:
    """The spans of the citations to A, C and B in ``response(provider, [A, <bad>, C])``."""
    if provider == "anthropic":  # a citation backs its whole block
        return [(0, len(FIRST)), (0, len(FIRST)), (len(FIRST), len(TEXT))]
    return [(0, 7), (8, 15), (len(FIRST) + 7, len(TEXT))]


BAD_CITATIONS = ("a bare URL string", "a number", "null", "a url that is a list", "no url")


@pytest.mark.parametrize("kind", BAD_CITATIONS)
@pytest.mark.parametrize("provider", CITING)
def test_a_malformed_citation_is_skipped_with_a_warning_and_the_others_kept(
    provider: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    first = [
        citation(provider, A, (0, 7)),
        bad_citation(provider, kind),
        citation(provider, C, (8, 15)),
    ]

    result = read(provider, response(provider, first), caplog)

    assert result.text == TEXT
    assert [c.url for c in result.citations] == [A, C, B]
    assert [c.span for c in result.citations] == expected_spans(provider)
    assert {A, B, C} <= set(result.source_urls)
    assert skipped(caplog, provider) == [
        (f"{FIRST_CITATIONS[provider]}[1]", bad_problem(provider, kind))
    ]


@pytest.mark.parametrize("listed", [7, LEAK_URL, {"url": LEAK_URL}, None], ids=repr)
@pytest.mark.parametrize("provider", CITING)
def test_a_citation_list_that_is_no_list_keeps_the_text_and_the_other_citations(
    provider: str, listed: Any, caplog: pytest.LogCaptureFixture
) -> None:
    result = read(provider, response(provider, listed), caplog)

    assert result.text == TEXT
    assert [c.url for c in result.citations] == [B]
    assert [result.quote(c) for c in result.citations] == (
        [SECOND] if provider == "anthropic" else ["Regen 🌧."]
    )
    if listed is None:  # null is how an SDK writes an absent list: nothing wrong
        assert skipped(caplog, provider) == []
    else:
        assert skipped(caplog, provider) == [(FIRST_CITATIONS[provider], "not a list")]


def test_openai_chat_whose_only_citations_are_unreadable_keeps_the_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Chat's search models search on every request, so an answer counts as a search result
    when it cites something; citations that cannot be read still show it did."""
    items = [{"type": "message", "content": TEXT, "annotations": 7}]

    result = read("openai-chat", items, caplog)

    assert result == WebSearchResult(text=TEXT)
    assert skipped(caplog, "openai-chat") == [("message.annotations", "not a list")]


@pytest.mark.parametrize(
    ("start", "end", "quoted"),
    [(-4, 6, "Morgen"), (-9, -2, ""), (7, 999, "Regen 🌧."), (3, 1, ""), (15, 15, "")],
    ids=[
        "start before the part",
        "both before",
        "end past the part",
        "end before start",
        "at the end",
    ],
)
@pytest.mark.parametrize("provider", ["openai", "openai-chat"])
def test_openai_offsets_outside_their_part_are_clamped_to_it(
    provider: str, start: int, end: int, quoted: str, caplog: pytest.LogCaptureFixture
) -> None:
    items = response(provider, [citation(provider, A, (0, 7))])
    second = items[-1] if provider == "openai-chat" else items[-1]["content"][1]
    second["annotations"] = [citation(provider, B, (start, end))]

    result = read(provider, items, caplog)

    assert [result.quote(c) for c in result.citations] == ["Zürich:", quoted]
    assert result.citations[1].span[0] >= len(FIRST)  # type: ignore[index]
    assert skipped(caplog, provider) == []


TEXT_FIELDS = {
    "openai": "output[1].content[0].text",
    "openai-chat": "message.content",
    "anthropic": "content[2].text",
}


@pytest.mark.parametrize("provider", CITING)
def test_a_text_segment_that_is_no_string_leaves_its_citations_without_spans(
    provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    items = response(provider, [citation(provider, A, (0, 7))])
    first = (
        items[0]
        if provider == "openai-chat"
        else (items[1]["content"][0] if provider == "openai" else items[2])
    )
    first["content" if provider == "openai-chat" else "text"] = [LEAK_TEXT]

    result = read(provider, items, caplog)

    assert result.text == SECOND
    assert [(c.url, c.span is None) for c in result.citations] == [(A, True), (B, False)]
    assert result.quote(result.citations[1]) == (SECOND if provider == "anthropic" else "Regen 🌧.")
    assert skipped(caplog, provider) == [(TEXT_FIELDS[provider], "not a string")]


# -- sources and queries ---------------------------------------------------------------------------

SOURCES = {
    "openai": (
        "output[0].action.sources",
        lambda url: {"type": "url", "url": url},
    ),
    "anthropic": (
        "content[1].content",
        lambda url: {"type": "web_search_result", "url": url, "title": "T", "page_age": None},
    ),
}


@pytest.mark.parametrize(
    ("bad", "problem"),
    [(LEAK_URL, "not an object"), (7, "not an object"), ("no url", "no url")],
    ids=["a bare URL string", "a number", "no url"],
)
@pytest.mark.parametrize("provider", list(SOURCES))
def test_a_malformed_source_is_skipped_with_a_warning_and_the_others_kept(
    provider: str, bad: Any, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    where, source = SOURCES[provider]
    if bad == "no url":
        bad = {**source(LEAK_URL), "url": None, "title": LEAK_TEXT}
    sources = [source("https://s.example/1"), bad, source("https://s.example/2")]
    if provider == "openai":
        sources.append({"type": "api", "name": "oai-weather"})  # no URL, and nothing wrong

    result = read(provider, response(provider, [], sources=sources), caplog)

    assert result.source_urls == ("https://s.example/1", "https://s.example/2", B)
    assert result.text == TEXT
    assert skipped(caplog, provider) == [(f"{where}[1]", problem)]


@pytest.mark.parametrize("listed", [7, LEAK_URL], ids=repr)
@pytest.mark.parametrize("provider", list(SOURCES))
def test_a_source_list_that_is_no_list_keeps_the_rest(
    provider: str, listed: Any, caplog: pytest.LogCaptureFixture
) -> None:
    result = read(provider, response(provider, [], sources=listed), caplog)

    assert (result.text, result.source_urls, result.queries) == (
        TEXT,
        (B,),
        ("wetter",) if provider == "openai" else ("q",),
    )
    assert skipped(caplog, provider) == [(SOURCES[provider][0], "not a list")]


def test_openai_a_query_that_is_no_string_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    items = response("openai", [])
    items[0]["action"]["queries"] = ["wetter", {"q": LEAK_TEXT}, "regen"]

    result = read("openai", items, caplog)

    assert result.queries == ("wetter", "regen")
    assert skipped(caplog, "openai") == [("output[0].action.queries[1]", "not a string")]


@pytest.mark.parametrize("provider", CITING)
def test_a_response_item_that_is_no_object_is_skipped(
    provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    items = response(provider, [citation(provider, A, (0, 7))])
    items.insert(1, LEAK_URL)

    result = read(provider, items, caplog)

    assert [c.url for c in result.citations] == [A, B]
    root = {"openai": "output[1]", "openai-chat": "message[1]", "anthropic": "content[1]"}
    assert skipped(caplog, provider) == [(root[provider], "not an object")]


# -- Gemini: supports citing grounding chunks by index -----------------------------------------

GOOGLE_ROOT = "candidate.groundingMetadata"


def web(url: str, title: str = "t") -> dict[str, Any]:
    return {"web": {"uri": url, "title": title}}


def gemini(
    chunks: Any, supports: Any, *, parts: list[Any] | None = None, queries: Any = ("q",)
) -> list[Any]:
    metadata = {
        "webSearchQueries": list(queries) if isinstance(queries, tuple) else queries,
        "groundingChunks": chunks,
        "groundingSupports": supports,
    }
    content = {"role": "model", "parts": [{"text": TEXT}] if parts is None else parts}
    return [{"content": content, "groundingMetadata": metadata}]


def support(start: int, end: int, indices: Any, text: str = TEXT) -> dict[str, Any]:
    """A support of ``text[start:end]`` (characters) citing chunks ``indices`` (as given)."""
    built = grounding_support(text, start, end, [])
    built["groundingChunkIndices"] = indices
    return built


@pytest.mark.parametrize(
    ("index", "problem"),
    [
        (3, "index out of range"),  # the list's length: one past the end
        (-1, "index out of range"),
        ("0", "not an integer"),
        (True, "not an integer"),
        (1.0, "not an integer"),
        (None, "not an integer"),
        (LEAK_URL, "not an integer"),
    ],
    ids=repr,
)
def test_google_a_chunk_index_that_is_no_index_of_the_chunks_is_skipped(
    index: Any, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    chunks = [web(A), web(B), web(C)]
    supports = [support(0, 7, [0, index, 2]), support(16, 31, [1])]

    result = read("google", gemini(chunks, supports), caplog)

    assert [(c.url, result.quote(c)) for c in result.citations] == [
        (A, "Zürich:"),
        (C, "Zürich:"),
        (B, "Morgen Regen 🌧."),
    ]
    assert result.source_urls == (A, B, C)
    where = f"{GOOGLE_ROOT}.groundingSupports[0].groundingChunkIndices[1]"
    assert skipped(caplog, "google") == [(where, problem)]


def test_google_a_malformed_chunk_keeps_the_other_chunks_at_their_indices(
    caplog: pytest.LogCaptureFixture,
) -> None:
    chunks = [web(A), LEAK_URL, web(C), {"web": {"title": LEAK_TEXT}}, {"maps": {"uri": "m"}}]
    supports = [
        support(0, 7, [0]),
        support(8, 15, [2]),
        support(16, 31, [1, 3, 4]),  # malformed chunks (already reported) and a maps chunk
    ]

    result = read("google", gemini(chunks, supports), caplog)

    assert [(c.url, result.quote(c)) for c in result.citations] == [
        (A, "Zürich:"),
        (C, "sonnig."),
    ]
    assert result.source_urls == (A, C)
    assert skipped(caplog, "google") == [
        (f"{GOOGLE_ROOT}.groundingChunks[1]", "not an object"),
        (f"{GOOGLE_ROOT}.groundingChunks[3].web", "no uri"),
    ]


@pytest.mark.parametrize("listed", [7, LEAK_URL, {"0": 1}, None], ids=repr)
def test_google_a_chunk_index_list_that_is_no_list_keeps_the_other_supports(
    listed: Any, caplog: pytest.LogCaptureFixture
) -> None:
    supports = [support(0, 7, listed), support(16, 31, [1])]

    result = read("google", gemini([web(A), web(B)], supports), caplog)

    assert [(c.url, result.quote(c)) for c in result.citations] == [(B, "Morgen Regen 🌧.")]
    assert result.text == TEXT
    expected = (
        []
        if listed is None
        else [(f"{GOOGLE_ROOT}.groundingSupports[0].groundingChunkIndices", "not a list")]
    )
    assert skipped(caplog, "google") == expected


@pytest.mark.parametrize("listed", [7, LEAK_URL, {"segment": {}}], ids=repr)
def test_google_a_support_list_that_is_no_list_keeps_text_sources_and_queries(
    listed: Any, caplog: pytest.LogCaptureFixture
) -> None:
    result = read("google", gemini([web(A), web(B)], listed), caplog)

    assert result == WebSearchResult(text=TEXT, source_urls=(A, B), queries=("q",))
    assert skipped(caplog, "google") == [(f"{GOOGLE_ROOT}.groundingSupports", "not a list")]


@pytest.mark.parametrize("listed", [7, LEAK_URL], ids=repr)
def test_google_a_chunk_list_that_is_no_list_keeps_text_and_queries(
    listed: Any, caplog: pytest.LogCaptureFixture
) -> None:
    result = read("google", gemini(listed, [support(0, 7, [0])]), caplog)

    assert result == WebSearchResult(text=TEXT, queries=("q",))
    assert skipped(caplog, "google") == [(f"{GOOGLE_ROOT}.groundingChunks", "not a list")]


def test_google_malformed_supports_queries_and_parts_are_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    supports = [
        support(0, 7, [0]),
        LEAK_URL,
        {"segment": LEAK_TEXT, "groundingChunkIndices": [0]},
        {
            "segment": {"startIndex": "0", "endIndex": 7, "text": LEAK_TEXT},
            "groundingChunkIndices": [1],
        },
        support(16, 31, [1]),
    ]
    parts = [{"text": FIRST}, LEAK_URL, {"text": SECOND}]

    result = read(
        "google", gemini([web(A), web(B)], supports, parts=parts, queries=["q", 3]), caplog
    )

    assert [(c.url, c.span) for c in result.citations] == [
        (A, (0, 7)),
        (B, None),  # its offsets cannot be read: the citation stays, without a span
        (B, (16, 31)),
    ]
    assert (result.text, result.queries) == (TEXT, ("q",))
    assert skipped(caplog, "google") == [
        (f"{GOOGLE_ROOT}.webSearchQueries[1]", "not a string"),
        ("candidate.content.parts[1]", "not an object"),
        (f"{GOOGLE_ROOT}.groundingSupports[1]", "not an object"),
        (f"{GOOGLE_ROOT}.groundingSupports[2].segment", "not an object"),
        (
            f"{GOOGLE_ROOT}.groundingSupports[3].segment",
            "offsets are not integers; the span is left out",
        ),
    ]


def test_a_flood_of_malformed_items_is_reported_in_a_bounded_number_of_records(
    caplog: pytest.LogCaptureFixture,
) -> None:
    supports = [support(0, 7, [0]), *([LEAK_URL] * 500), support(16, 31, [0])]

    result = read("google", gemini([web(A)], supports), caplog)

    assert [result.quote(c) for c in result.citations] == ["Zürich:", "Morgen Regen 🌧."]
    records = hosted_warnings(caplog)
    assert len(records) == MAX_WARNINGS + 1
    assert records[-1].affordance_more == 500 - MAX_WARNINGS  # type: ignore[attr-defined]
    assert "skipped 480 more malformed items" in records[-1].getMessage()


# -- Gemini: byte offsets to characters ---------------------------------------------------------

MIXED = "aß€🚀 Zürich 中文 ok 🌧️!"
"""1-, 2-, 3- and 4-byte characters, and a variation selector."""


@pytest.mark.parametrize("parts", [[MIXED], ["Vorab: ", MIXED], ["ab", "", MIXED]], ids=len)
def test_google_every_character_span_of_a_mixed_unicode_part_maps_to_itself(
    parts: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    last = len(parts) - 1
    spans = [(i, j) for i in range(len(MIXED) + 1) for j in range(i, len(MIXED) + 1)]
    supports = []
    for start, end in spans:
        built = grounding_support(MIXED, start, end, [0], part_index=last)
        del built["segment"]["text"]  # the offsets alone
        supports.append(built)
    items = gemini([web(A)], supports, parts=[{"text": p} for p in parts])

    result = read("google", items, caplog)

    before = len("".join(parts[:-1]))
    assert [c.span for c in result.citations] == [(before + i, before + j) for i, j in spans]
    assert skipped(caplog, "google") == []


def test_google_an_offset_inside_a_multibyte_character_counts_as_its_start(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = "aß€🚀b"  # bytes: a 0, ß 1-2, € 3-5, 🚀 6-9, b 10
    inside = [(2, 11), (4, 11), (5, 11), (7, 11), (9, 11), (0, 2), (0, 5), (0, 8)]
    supports = [
        {"segment": {"startIndex": s, "endIndex": e}, "groundingChunkIndices": [0]}
        for s, e in inside
    ]

    result = read("google", gemini([web(A)], supports, parts=[{"text": text}]), caplog)

    assert [result.quote(c) for c in result.citations] == [
        "ß€🚀b",
        "€🚀b",
        "€🚀b",
        "🚀b",
        "🚀b",
        "a",
        "aß",
        "aß€",
    ]


@pytest.mark.parametrize("text", ["Paris is sunny.", "Paris ist sonnig ☀."], ids=["ascii", "utf-8"])
@pytest.mark.parametrize(
    ("start", "end", "quoted"),
    [(-5, 5, "Paris"), (-50, -1, ""), (6, 10_000, "rest"), (9, 6, "")],
    ids=["start before the text", "both before", "end past the text", "end before start"],
)
def test_google_offsets_outside_the_text_are_clamped_to_it(
    text: str, start: int, end: int, quoted: str, caplog: pytest.LogCaptureFixture
) -> None:
    supports = [{"segment": {"startIndex": start, "endIndex": end}, "groundingChunkIndices": [0]}]

    result = read("google", gemini([web(A)], supports, parts=[{"text": text}]), caplog)

    (cited,) = result.citations
    assert result.quote(cited) == (text[6:] if quoted == "rest" else quoted)
    assert skipped(caplog, "google") == []


def test_google_a_lone_surrogate_in_the_text_keeps_the_output(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """JSON may escape half a surrogate pair (``"\\ud83d"``); it is no UTF-8, so it counts as
    the three bytes Python's ``surrogatepass`` writes, and nothing breaks."""
    first, second = "a\ud83db Zürich.", "x\ud83d Köln."
    zurich = (6, 6 + len("Zürich".encode()))  # a 1 byte, the surrogate 3, "b " 2
    koeln = (5, 5 + len("Köln".encode()))  # x 1 byte, the surrogate 3, " " 1
    supports = [
        {"segment": {"startIndex": zurich[0], "endIndex": zurich[1]}, "groundingChunkIndices": [0]},
        {
            "segment": {"partIndex": 1, "startIndex": koeln[0], "endIndex": koeln[1]},
            "groundingChunkIndices": [0],
        },
    ]
    parts = [{"text": first}, {"text": second}]

    result = read("google", gemini([web(A)], supports, parts=parts), caplog)

    assert result.text == first + second
    assert [result.quote(c) for c in result.citations] == ["Zürich", "Köln"]


def test_google_a_segment_text_is_looked_for_only_near_its_offsets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    filler = "·" * (3 * SEGMENT_SEARCH_REACH)
    text = f"Ça va. {filler} Ça va bien. {filler} loin: Très bien."
    near = text.index("Ça va bien.")
    far = text.index("Très bien.")
    off_by_two = [
        {
            "segment": {"startIndex": s + 2, "endIndex": e + 2, "text": quote},
            "groundingChunkIndices": [0],
        }
        for quote, (s, e) in [
            ("Ça va.", utf8_offsets(text, 0, 6)),  # near the start of a long text
            ("Ça va bien.", utf8_offsets(text, near, near + 11)),
        ]
    ]
    # offsets pointing at the start of the text, its text far beyond the reach
    ten = utf8_offsets(text, 0, 10)[1]
    off_by_two.append(
        {"segment": {"endIndex": ten, "text": "Très bien."}, "groundingChunkIndices": [0]}
    )

    result = read("google", gemini([web(A)], off_by_two, parts=[{"text": text}]), caplog)

    assert [c.span for c in result.citations] == [(0, 6), (near, near + 11), (0, 10)]
    assert far > SEGMENT_SEARCH_REACH + 10


def test_google_ten_thousand_supports_over_200_kb_are_all_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The case that took a minute (bench/bench_gemini_grounding.py): every sentence the same,
    every segment's offsets two bytes late, so each support looks for its text."""
    sentence = "Maß 00000 🚀 ok. "  # 16 characters, 20 bytes
    count = 10_000
    text = sentence * count
    supports = [
        {
            "segment": {"startIndex": 20 * n + 2, "endIndex": 20 * n + 22, "text": sentence},
            "groundingChunkIndices": [n % 2],
        }
        for n in range(count)
    ]

    result = read("google", gemini([web(A), web(B)], supports, parts=[{"text": text}]), caplog)

    assert len(text.encode()) == 200_000
    assert len(result.citations) == count
    assert [c.span for c in result.citations] == [(16 * n, 16 * n + 16) for n in range(count)]
    assert [c.url for c in result.citations[:3]] == [A, B, A]
