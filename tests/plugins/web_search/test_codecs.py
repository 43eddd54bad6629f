"""The ``web_search`` codecs: the conformance kit on each, every setting honoured or refused
per provider, and the sample responses read into the same typed result everywhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hosted_tools import ANSWER, CITED_SPANS, PROVIDERS, codec_items, load
from loopback import grounding_support, utf8_offsets

from affordance import HostedTool
from affordance_testing.codec_contract import CodecContract
from affordance_web_search import (
    CONFIG_FIELDS,
    Citation,
    DomainFilter,
    GeoHint,
    UnsupportedWebSearchConfigError,
    WebSearchConfig,
    WebSearchResult,
    web_search_tool,
)
from affordance_web_search.anthropic_messages import AnthropicWebSearchCodec
from affordance_web_search.google_gemini import GoogleWebSearchCodec
from affordance_web_search.openai_chat import OpenAIChatWebSearchCodec
from affordance_web_search.openai_responses import OpenAIWebSearchCodec

CODECS: dict[str, Any] = {
    "openai": OpenAIWebSearchCodec(),
    "openai-chat": OpenAIChatWebSearchCodec(),
    "anthropic": AnthropicWebSearchCodec(),
    "google": GoogleWebSearchCodec(),
}
SAMPLES = {
    "openai": "openai_responses_web_search",
    "openai-chat": "openai_chat_web_search",
    "anthropic": "anthropic_web_search",
    "google": "google_web_search",
}

ONLY = {
    "domain_filter.allowed": WebSearchConfig(domain_filter=DomainFilter(allowed=("cdc.gov",))),
    "domain_filter.blocked": WebSearchConfig(domain_filter=DomainFilter(blocked=("spam.example",))),
    "geo_hint": WebSearchConfig(geo_hint=GeoHint(country_code="GB", city="London")),
    "max_uses": WebSearchConfig(max_uses=3),
    "allow_live_access": WebSearchConfig(allow_live_access=False),
    "context_size": WebSearchConfig(context_size="high"),
}
"""A config asking for exactly one thing, per entry of CONFIG_FIELDS."""


def sample(provider: str) -> list[dict[str, Any]]:
    return codec_items(provider, load(SAMPLES[provider]))


def tool(config: WebSearchConfig | None = None) -> HostedTool[WebSearchConfig]:
    return web_search_tool(config)


# -- the conformance kit -------------------------------------------------------------------------


class WebSearchContract(CodecContract):
    provider = ""

    @pytest.fixture
    def codec(self) -> Any:
        return CODECS[self.provider]

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[WebSearchConfig]:
        return tool()

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return sample(self.provider)


class TestOpenAIWebSearchCodec(WebSearchContract):
    provider = "openai"


class TestOpenAIChatWebSearchCodec(WebSearchContract):
    provider = "openai-chat"

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [{"type": "message", "content": "Hello.", "annotations": []}]


class TestAnthropicWebSearchCodec(WebSearchContract):
    provider = "anthropic"

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [{"type": "text", "text": "Hello."}]


class TestGoogleWebSearchCodec(WebSearchContract):
    provider = "google"

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [{"content": {"role": "model", "parts": [{"text": "Hello."}]}, "index": 0}]


# -- what each provider honours ----------------------------------------------------------------


def test_each_codec_declares_only_known_fields() -> None:
    for codec in CODECS.values():
        assert set(codec.honours) <= set(CONFIG_FIELDS)
        assert codec.kind == "web_search"
    assert list(CODECS) == list(PROVIDERS)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("field", CONFIG_FIELDS)
def test_a_setting_is_sent_where_honoured_and_refused_by_name_elsewhere(
    provider: str, field: str
) -> None:
    codec = CODECS[provider]
    hosted = web_search_tool(ONLY[field], name="research")

    if field in codec.honours:
        assert codec.serialize(hosted) != codec.serialize(tool())
        return
    with pytest.raises(UnsupportedWebSearchConfigError) as raised:
        codec.serialize(hosted)
    error = raised.value
    assert (error.field, error.provider, error.tool_name, error.phase) == (
        field,
        provider,
        "research",
        "render",
    )
    assert f"sets {field}, which provider {provider!r} cannot honour" in str(error)


def test_openai_responses_wire() -> None:
    config = WebSearchConfig(
        domain_filter=DomainFilter(allowed=("pubmed.ncbi.nlm.nih.gov", "www.cdc.gov")),
        geo_hint=GeoHint(country_code="GB", city="London", timezone="Europe/London"),
        allow_live_access=False,
        context_size="low",
    )

    assert CODECS["openai"].serialize(tool(config)) == {
        "type": "web_search",
        "filters": {"allowed_domains": ["pubmed.ncbi.nlm.nih.gov", "www.cdc.gov"]},
        "user_location": {
            "type": "approximate",
            "country": "GB",
            "city": "London",
            "timezone": "Europe/London",
        },
        "external_web_access": False,
        "search_context_size": "low",
    }
    assert CODECS["openai"].serialize(tool()) == {"type": "web_search"}


def test_openai_chat_wire_is_request_fields_with_the_location_nested() -> None:
    config = WebSearchConfig(geo_hint=GeoHint(country_code="FR", city="Paris"), context_size="high")

    assert CODECS["openai-chat"].serialize(tool(config)) == {
        "web_search_options": {
            "search_context_size": "high",
            "user_location": {
                "type": "approximate",
                "approximate": {"country": "FR", "city": "Paris"},
            },
        }
    }
    assert CODECS["openai-chat"].serialize(tool()) == {"web_search_options": {}}


def test_anthropic_wire() -> None:
    config = WebSearchConfig(
        domain_filter=DomainFilter(blocked=("spam.example",)),
        geo_hint=GeoHint(country_code="FR", city="Paris", region="IDF", timezone="Europe/Paris"),
        max_uses=5,
    )

    assert CODECS["anthropic"].serialize(web_search_tool(config, name="cached_search")) == {
        "type": "web_search_20250305",
        "name": "web_search",
        "max_uses": 5,
        "blocked_domains": ["spam.example"],
        "user_location": {
            "type": "approximate",
            "country": "FR",
            "city": "Paris",
            "region": "IDF",
            "timezone": "Europe/Paris",
        },
    }


def test_anthropic_takes_allowed_or_blocked_domains_not_both() -> None:
    both = WebSearchConfig(
        domain_filter=DomainFilter(allowed=("a.example",), blocked=("b.example",))
    )

    with pytest.raises(UnsupportedWebSearchConfigError, match="one or the other") as raised:
        CODECS["anthropic"].serialize(tool(both))

    assert (raised.value.field, raised.value.provider) == ("domain_filter.blocked", "anthropic")


def test_google_wire_is_the_bare_grounding_tool() -> None:
    assert CODECS["google"].serialize(tool()) == {"googleSearch": {}}


@dataclass(frozen=True)
class OtherConfig:
    allowed: tuple[str, ...] = ()


def test_a_codec_reads_only_its_own_config_type() -> None:
    foreign = HostedTool("web_search", "search", "Search.", OtherConfig())

    with pytest.raises(TypeError, match="codecs of affordance_web_search read WebSearchConfig"):
        CODECS["openai"].serialize(foreign)  # type: ignore[arg-type]


# -- one typed result from every provider's sample -----------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_same_answer_gives_the_same_citations_on_every_provider(provider: str) -> None:
    result = CODECS[provider].parse_output(sample(provider), tool())

    assert isinstance(result, WebSearchResult)
    assert result.text == ANSWER
    assert tuple(result.quote(c) for c in result.citations) == CITED_SPANS
    assert [c.title is not None for c in result.citations] == [True, True, True]


def test_openai_reads_queries_and_every_consulted_source() -> None:
    result = CODECS["openai"].parse_output(sample("openai"), tool())

    assert result is not None
    assert result.queries == ("Wetter Zürich heute", "Zürich Regen morgen")
    assert result.source_urls == (
        "https://www.meteoswiss.admin.ch/zurich",
        "https://www.srf.ch/meteo",
        "https://www.wetter.com/zuerich",
    )
    assert result.citations[0] == Citation(
        "https://www.meteoswiss.admin.ch/zurich", "MeteoSwiss: Zürich", (17, 31)
    )


def test_openai_offsets_are_per_part_and_clamped() -> None:
    items = [
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "open_page", "url": "https://b.example/page"}},
        {"type": "message", "content": [
            {"type": "output_text", "text": "Première. ", "annotations": []},
            {"type": "output_text", "text": "Deuxième.", "annotations": [
                {"type": "url_citation", "url": "https://b.example/page", "title": "B",
                 "start_index": 0, "end_index": 99},
                {"type": "url_citation", "url": "https://c.example", "title": "",
                 "start_index": None, "end_index": 3}]}]},
        {"type": "web_search_call", "id": "ws_2", "status": "failed", "action": None},
    ]  # fmt: skip

    result = CODECS["openai"].parse_output(items, tool())

    assert result is not None
    assert result.text == "Première. Deuxième."
    assert result.quote(result.citations[0]) == "Deuxième."
    assert result.citations[1] == Citation("https://c.example", None, None)
    assert result.source_urls == ("https://b.example/page", "https://c.example")
    assert result.errors == ("failed",)


def test_openai_chat_reads_only_what_chat_reports() -> None:
    result = CODECS["openai-chat"].parse_output(sample("openai-chat"), tool())

    assert result is not None
    assert result.source_urls == (
        "https://www.meteoswiss.admin.ch/zurich",
        "https://www.srf.ch/meteo",
    )
    assert (result.queries, result.errors) == ((), ())
    assert all(c.excerpt is None for c in result.citations)


def test_anthropic_reads_results_excerpts_and_queries() -> None:
    result = CODECS["anthropic"].parse_output(sample("anthropic"), tool())

    assert result is not None
    assert result.queries == ("Wetter Zürich heute",)
    assert result.source_urls == (
        "https://www.meteoswiss.admin.ch/zurich",
        "https://www.srf.ch/meteo",
    )
    assert [c.excerpt for c in result.citations] == [
        "Heute in Zürich: sonnig bei 24 Grad.",
        "Morgen zieht Regen auf.",
        "Ab Mittwoch Regen im Mittelland.",
    ]


def test_anthropic_reports_a_search_error_and_a_missing_title() -> None:
    blocks = [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1",
         "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
        {"type": "text", "text": "Found.", "citations": [
            {"type": "web_search_result_location", "url": "https://a.example", "title": None,
             "cited_text": "found", "encrypted_index": "x"},
            {"type": "char_location", "document_index": 0, "cited_text": "not a web source"}]},
    ]  # fmt: skip

    result = CODECS["anthropic"].parse_output(blocks, tool())

    assert result == WebSearchResult(
        text="Found.",
        citations=(Citation("https://a.example", None, (0, 6), "found"),),
        source_urls=("https://a.example",),
        queries=("q",),
        errors=("max_uses_exceeded",),
    )


def test_anthropic_ignores_other_server_tools() -> None:
    blocks = [{"type": "server_tool_use", "id": "s1", "name": "web_fetch", "input": {}}]

    assert CODECS["anthropic"].parse_output(blocks, tool()) is None


def test_google_reads_queries_and_chunk_urls() -> None:
    result = CODECS["google"].parse_output(sample("google"), tool())

    assert result is not None
    assert result.queries == ("Wetter Zürich heute", "Zürich Regen morgen")
    assert len(result.source_urls) == 2
    assert all(u.startswith("https://vertexaisearch.cloud.google.com/") for u in result.source_urls)
    assert [c.title for c in result.citations] == [
        "meteoswiss.admin.ch",
        "meteoswiss.admin.ch",
        "srf.ch",
    ]


def google_candidate(parts: list[dict[str, Any]], supports: list[dict[str, Any]]) -> dict[str, Any]:
    metadata = {
        "webSearchQueries": ["q"],
        "groundingChunks": [{"web": {"uri": "https://r.example/1", "title": "one.example"}}],
        "groundingSupports": supports,
    }
    return {"content": {"role": "model", "parts": parts}, "groundingMetadata": metadata}


def test_google_byte_offsets_become_character_offsets_without_the_segment_text() -> None:
    text = "Größe: 1,80 m — 🚀 schnell"
    support = grounding_support(text, 16, 25, [0])
    del support["segment"]["text"]

    result = CODECS["google"].parse_output([google_candidate([{"text": text}], [support])], tool())

    assert result is not None
    assert result.quote(result.citations[0]) == "🚀 schnell"


def test_google_offsets_count_from_the_part_of_part_index_skipping_thoughts() -> None:
    first, second = "Vorab: ", "Köln liegt am Rhein."
    support = grounding_support(second, 14, 20, [0], part_index=2)
    del support["segment"]["text"]
    parts = [{"text": "Überlegung…", "thought": True}, {"text": first}, {"text": second}]

    result = CODECS["google"].parse_output([google_candidate(parts, [support])], tool())

    assert result is not None
    assert result.text == first + second
    assert result.quote(result.citations[0]) == "Rhein."


def test_google_segment_text_settles_offsets_that_do_not_match() -> None:
    text = "Ça va. Ça va bien."
    start, end = utf8_offsets(text, 7, 18)
    segment = {"startIndex": start + 2, "endIndex": end + 2, "text": "Ça va bien."}
    support = {"segment": segment, "groundingChunkIndices": [0, 7]}

    result = CODECS["google"].parse_output([google_candidate([{"text": text}], [support])], tool())

    assert result is not None
    assert [result.quote(c) for c in result.citations] == ["Ça va bien."]


def test_google_without_grounding_is_no_result() -> None:
    candidate = google_candidate([{"text": "Hi"}], [])
    candidate["groundingMetadata"] = {"groundingChunks": [], "webSearchQueries": []}

    assert CODECS["google"].parse_output([candidate], tool()) is None
