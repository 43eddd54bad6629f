"""Web search through each provider's real adapter and SDK over the loopback server, with the
codecs the installed plugin registers (no ``codecs=`` override): the same question answered on
every provider gives a ``WebSearchResult`` of the same shape, equal plain, streamed, sync and
async, whose citations slice the answer to the cited spans (after non-ASCII text; Gemini's
UTF-8 byte offsets included)."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_tools import ANSWER, CITED_SPANS, load
from hosted_tools.build import WEATHER, web_search_bodies
from hosted_tools.runs import PROVIDER_WIRES, available, run_all_ways
from loopback import message, message_pause_turn, message_usage

from affordance import HostedToolResult, MarkdownSection, PromptEvaluationError, PromptTemplate
from affordance_web_search import (
    DomainFilter,
    GeoHint,
    UnsupportedWebSearchConfigError,
    WebSearchConfig,
    WebSearchResult,
    WebSearchSection,
)

SAMPLES = {
    "openai": "openai_responses_web_search",
    "openai-chat": "openai_chat_web_search",
    "anthropic": "anthropic_web_search",
    "google": "google_web_search",
}
PROVIDERS = available(*SAMPLES)


def prompt(config: WebSearchConfig | None = None) -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="Wie ist das Wetter in Zürich?")
    return PromptTemplate(ns="tests", key="weather", sections=[task, WebSearchSection(config)])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_result_is_the_same_plain_streamed_sync_and_async(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with wire.running() as (server, adapter):
        wire.script(server, load(SAMPLES[provider]), times=2)
        runs = run_all_ways(adapter, prompt(), asynchronous=True)
        server.assert_script_consumed()

    result = runs.plain.hosted_outputs["web_search"]
    assert isinstance(result, WebSearchResult)
    assert runs.plain.text == ANSWER
    assert len(result.citations) == len(CITED_SPANS)
    assert len(result.source_urls) >= 2
    assert [response.hosted_outputs for response in runs.all()] == [{"web_search": result}] * 4
    assert runs.streamed_results == [HostedToolResult("web_search", result)]


EXPECTED = [
    ("https://www.meteoswiss.admin.ch/zurich", "MeteoSwiss: Zürich", (17, 31)),
    ("https://www.meteoswiss.admin.ch/zurich", "MeteoSwiss: Zürich", (40, 49)),
    ("https://www.srf.ch/meteo", "SRF Meteo", (40, 49)),
]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_citations_slice_the_answer_to_the_cited_spans(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with wire.running() as (server, adapter):
        wire.script(server, load(SAMPLES[provider]))
        runs = run_all_ways(adapter, prompt())

    for response in runs.all():
        result = response.hosted_outputs["web_search"]
        assert isinstance(result, WebSearchResult)
        assert result.text == ANSWER
        assert tuple(result.quote(c) for c in result.citations) == CITED_SPANS
        if provider != "google":  # Gemini's URLs are redirects and its titles domains
            assert [(c.url, c.title, c.span) for c in result.citations] == EXPECTED
        assert [c.span for c in result.citations] == [span for _, _, span in EXPECTED]


def test_through_the_google_adapter_queries_titles_and_sources_are_read() -> None:
    if "google" not in PROVIDERS:
        pytest.skip("the google plugin is not installed")
    wire = PROVIDER_WIRES["google"]
    with wire.running() as (server, adapter):
        wire.script_plain(server, load(SAMPLES["google"]))
        result = adapter.evaluate(prompt()).hosted_outputs["web_search"]

    assert isinstance(result, WebSearchResult)
    assert result.queries == ("Wetter Zürich heute", "Zürich Regen morgen")
    assert [c.title for c in result.citations] == ["meteoswiss.admin.ch"] * 2 + ["srf.ch"]
    assert result.source_urls == tuple(
        dict.fromkeys(c.url for c in result.citations)
    )  # both chunks are cited
    assert server.requests[0].body["tools"] == [{"googleSearch": {}}]


DECLARED = {
    "openai": {
        "type": "web_search",
        "user_location": {"type": "approximate", "country": "CH", "city": "Zürich"},
    },
    "anthropic": {
        "type": "web_search_20250305",
        "name": "web_search",
        "user_location": {"type": "approximate", "country": "CH", "city": "Zürich"},
    },
}


@pytest.mark.parametrize("provider", available("openai", "anthropic"))
def test_the_tool_is_declared_from_the_config(provider: str) -> None:
    wire = PROVIDER_WIRES[provider]
    with wire.running() as (server, adapter):
        wire.script_plain(server, load(SAMPLES[provider]))
        adapter.evaluate(
            prompt(WebSearchConfig(geo_hint=GeoHint(country_code="CH", city="Zürich")))
        )

    assert server.requests[0].body["tools"] == [DECLARED[provider]]


def test_chat_sends_web_search_options_and_no_tools() -> None:
    wire = PROVIDER_WIRES["openai-chat"]
    config = WebSearchConfig(geo_hint=GeoHint(country_code="CH"), context_size="low")
    with wire.running() as (server, adapter):
        wire.script_plain(server, load(SAMPLES["openai-chat"]))
        adapter.evaluate(prompt(config))

    body = server.requests[0].body
    assert body["web_search_options"] == {
        "search_context_size": "low",
        "user_location": {"type": "approximate", "approximate": {"country": "CH"}},
    }
    assert "tools" not in body


BLOCKED = WebSearchConfig(domain_filter=DomainFilter(blocked=("x.example",)))
ALLOWED = WebSearchConfig(domain_filter=DomainFilter(allowed=("x.example",)))
BOTH = WebSearchConfig(domain_filter=DomainFilter(allowed=("x.example",), blocked=("y.example",)))


@pytest.mark.parametrize(
    ("provider", "config", "field"),
    [
        ("openai", BLOCKED, "domain_filter.blocked"),
        ("openai", WebSearchConfig(max_uses=2), "max_uses"),
        ("openai-chat", ALLOWED, "domain_filter.allowed"),
        ("openai-chat", WebSearchConfig(allow_live_access=False), "allow_live_access"),
        ("anthropic", BOTH, "domain_filter.blocked"),
        ("anthropic", WebSearchConfig(context_size="high"), "context_size"),
        ("google", ALLOWED, "domain_filter.allowed"),
        ("google", WebSearchConfig(geo_hint=GeoHint(country_code="CH")), "geo_hint"),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
def test_a_setting_the_provider_cannot_honour_fails_before_any_request(
    provider: str, config: WebSearchConfig, field: str, streamed: bool
) -> None:
    if provider not in PROVIDERS:
        pytest.skip(f"the {provider} plugin is not installed")
    wire = PROVIDER_WIRES[provider]

    def run(adapter: Any) -> None:
        if not streamed:
            adapter.evaluate(prompt(config))
            return
        with adapter.stream(prompt(config)) as events:
            list(events)

    with (
        wire.running() as (server, adapter),
        pytest.raises(UnsupportedWebSearchConfigError) as raised,
    ):
        run(adapter)

    assert (raised.value.field, raised.value.provider) == (field, provider)
    assert isinstance(raised.value, PromptEvaluationError)
    assert raised.value.phase == "render"
    assert server.requests == ()


@pytest.mark.skipif("anthropic" not in PROVIDERS, reason="the anthropic plugin is not installed")
def test_a_paused_anthropic_search_is_continued_and_read_whole() -> None:
    body = web_search_bodies(WEATHER)["anthropic"]
    search, results, *text = body["content"]
    paused = message_pause_turn([search], usage=message_usage(30, 5, web_search_requests=1))
    done = message([results, *text], usage=message_usage(60, 12))
    wire = PROVIDER_WIRES["anthropic"]
    with wire.running() as (server, adapter):
        server.script(wire.path, paused, done, wire.stream(paused.body), wire.stream(done.body))
        plain = adapter.evaluate(prompt())
        with adapter.stream(prompt()) as events:
            list(events)

    result = plain.hosted_outputs["web_search"]
    assert isinstance(result, WebSearchResult)
    assert result.queries == ("Wetter Zürich heute",)
    assert tuple(result.quote(c) for c in result.citations) == CITED_SPANS
    assert events.response is not None
    assert events.response.hosted_outputs == plain.hosted_outputs
    assert plain.turns == 2
