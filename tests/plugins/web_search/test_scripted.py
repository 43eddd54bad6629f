"""Offline: ``ScriptedAdapter(codecs_of=PROVIDER)`` runs provider-shaped hosted items through
the codec the installed plugin registers for that provider, so the real codecs work in tests
and demos with no network and no SDK."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_tools import ANSWER, CITED_SPANS, PROVIDERS, codec_items, load

from affordance import MarkdownSection, PromptTemplate
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import ScriptedAdapter
from affordance_web_search import WebSearchResult, WebSearchSection

SAMPLES = {
    "openai": "openai_responses_web_search",
    "openai-chat": "openai_chat_web_search",
    "anthropic": "anthropic_web_search",
    "google": "google_web_search",
}


def prompt() -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="Wie ist das Wetter in Zürich?")
    return PromptTemplate(ns="tests", key="weather", sections=[task, WebSearchSection()])


def test_the_readme_example() -> None:
    # A turn as OpenAI's Responses API would send it: a search call, then the cited answer.
    items = tuple(load("openai_responses_web_search")["output"])
    adapter = ScriptedAdapter([ProviderTurn(text=ANSWER, hosted_items=items)], codecs_of="openai")

    response = adapter.evaluate(prompt())

    result = response.hosted_outputs["web_search"]
    assert isinstance(result, WebSearchResult)
    assert [result.quote(c) for c in result.citations] == list(CITED_SPANS)
    assert adapter.requests[0].hosted_tools[0].kind == "web_search"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_provider_shape_reads_the_same_plain_and_streamed(provider: str) -> None:
    items = tuple(codec_items(provider, load(SAMPLES[provider])))
    turn = ProviderTurn(text=ANSWER, hosted_items=items)
    adapter = ScriptedAdapter([turn, turn], codecs_of=provider, stream_chunk=3)

    plain = adapter.evaluate(prompt())
    with adapter.stream(prompt()) as events:
        list(events)

    result = plain.hosted_outputs["web_search"]
    assert isinstance(result, WebSearchResult)
    assert tuple(result.quote(c) for c in result.citations) == CITED_SPANS
    assert events.response is not None
    assert events.response.hosted_outputs == plain.hosted_outputs
