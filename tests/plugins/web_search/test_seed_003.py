"""Seed 003's usage examples (in ``seeds/``, import paths changed) run on each provider that
supports their configuration, and fail before any request, naming the setting, on each that
does not.

Each provider runs through its adapter and real SDK over the loopback server. A provider whose
plugin is not installed runs through ``ScriptedAdapter(codecs_of=...)`` instead, whose
responder builds the hosted declarations as an adapter does while building its request, then
answers with the provider's sample items.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hosted_tools import codec_items
from hosted_tools.build import WEATHER, Piece, web_search_bodies
from hosted_tools.runs import PROVIDER_WIRES, available
from loopback import JsonReply

from affordance import EventBus, MarkdownSection, PromptResponse, PromptTemplate, Session
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter
from affordance_web_search import UnsupportedWebSearchConfigError, WebSearchResult

SEEDS = Path(__file__).parent / "seeds"
PROVIDERS = ("openai", "openai-chat", "anthropic", "google")
REAL = available(*PROVIDERS)

SUPPORTED = {
    "basic": {"openai", "openai-chat", "anthropic", "google"},
    "domain_restricted": {"openai", "anthropic"},  # Chat and Gemini have no domain filter
    "geo_localized": {"openai", "openai-chat", "anthropic"},  # Gemini has no location
    "inline": {"openai"},  # cache-only search (allow_live_access=False) is OpenAI's alone
}
REFUSED_FIELD = {
    "domain_restricted": "domain_filter.allowed",
    "geo_localized": "geo_hint",
    "inline": "allow_live_access",
}


@dataclass(frozen=True)
class Answer:
    answer: str


@dataclass(frozen=True)
class Question:
    question: str


JSON_ANSWER: list[Piece] = [('{"answer": "', ()), ("sonnig, 24 °C.", (0,)), ('"}', ())]


class Provider:
    """Runs prompts on one provider, answering every request with ``pieces`` searched."""

    def __init__(self, name: str, pieces: list[Piece]) -> None:
        self.name = name
        self.body = web_search_bodies(pieces)[name]
        self.text = "".join(text for text, _ in pieces)
        self.declared: list[list[dict[str, Any]]] = []
        self.sent = 0

    def run(self, evaluate: Callable[[Any], PromptResponse[Any]]) -> PromptResponse[Any]:
        if self.name in REAL:
            return self._real(evaluate)
        return self._emulated(evaluate)

    def _real(self, evaluate: Callable[[Any], PromptResponse[Any]]) -> PromptResponse[Any]:
        wire = PROVIDER_WIRES[self.name]
        with wire.running() as (server, adapter):
            server.set_responder(lambda _: JsonReply(self.body), path=wire.path)
            try:
                return evaluate(adapter)
            finally:
                self.sent = len(server.requests)
                body = server.requests[0].body if server.requests else {}
                chat_fields = {"web_search_options": body.get("web_search_options")}
                self.declared = [body.get("tools", [chat_fields])]

    def _emulated(self, evaluate: Callable[[Any], PromptResponse[Any]]) -> PromptResponse[Any]:
        """What an adapter does, without its SDK: declare the hosted tools through their codecs
        while building the request (which may refuse), then answer with the body's items."""
        items = tuple(codec_items(self.name, self.body))
        adapter: ScriptedAdapter

        def respond(request: ModelRequest) -> ProviderTurn:
            self.declared.append(adapter.connection.hosted_declarations(request))
            self.sent += 1
            return ProviderTurn(text=self.text, hosted_items=items)

        adapter = ScriptedAdapter(responder=respond, codecs_of=self.name)
        return evaluate(adapter)


def run_seed(name: str, **globals_: Any) -> dict[str, Any]:
    return runpy.run_path(str(SEEDS / f"seed_003_{name}.py"), init_globals=globals_)


def task_prompt(*sections: Any) -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="Wie ist das Wetter in Zürich heute?")
    return PromptTemplate(ns="seeds", key="weather", sections=[task, *sections])


def check_result(response: PromptResponse[Any], name: str = "web_search") -> WebSearchResult:
    result = response.hosted_outputs[name]
    assert isinstance(result, WebSearchResult)
    assert result.citations
    assert result.quote(result.citations[0]) == "sonnig, 24 °C."
    return result


@pytest.mark.parametrize("provider", PROVIDERS)
def test_basic_web_search(provider: str) -> None:
    runner = Provider(provider, JSON_ANSWER)

    def evaluate(adapter: Any) -> PromptResponse[Any]:
        namespace = run_seed(
            "basic",
            Answer=Answer,
            Question=Question,
            question=Question("Wie ist das Wetter in Zürich heute?"),
            adapter=adapter,
            bus=EventBus(),
            session=Session(),
        )
        response: PromptResponse[Any] = namespace["response"]
        return response

    response = runner.run(evaluate)

    assert response.output == Answer("sonnig, 24 °C.")
    check_result(response)


def seed_section(name: str) -> Callable[[Any], PromptResponse[Any]]:
    def evaluate(adapter: Any) -> PromptResponse[Any]:
        namespace = run_seed(name, MarkdownSection=MarkdownSection)
        if name == "inline":  # the seed's own section needs $topic params it never gets
            section = MarkdownSection(
                title="Research", template="Find it.", hosted_tools=(namespace["tool"],)
            )
        else:
            section = namespace["section"]
        return adapter.evaluate(task_prompt(section))

    return evaluate


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("example", ["domain_restricted", "geo_localized", "inline"])
def test_configured_examples_run_where_supported_and_fail_by_name_elsewhere(
    example: str, provider: str
) -> None:
    runner = Provider(provider, WEATHER)

    if provider in SUPPORTED[example]:
        response = runner.run(seed_section(example))
        check_result(response, "cached_search" if example == "inline" else "web_search")
        assert runner.sent == 1
        return
    with pytest.raises(UnsupportedWebSearchConfigError) as raised:
        runner.run(seed_section(example))
    assert (raised.value.field, raised.value.provider) == (REFUSED_FIELD[example], provider)
    assert runner.sent == 0


WIRE: Mapping[tuple[str, str], Any] = {
    ("domain_restricted", "openai"): {
        "type": "web_search",
        "filters": {"allowed_domains": ["pubmed.ncbi.nlm.nih.gov", "www.cdc.gov", "www.who.int"]},
    },
    ("domain_restricted", "anthropic"): {
        "type": "web_search_20250305",
        "name": "web_search",
        "allowed_domains": ["pubmed.ncbi.nlm.nih.gov", "www.cdc.gov", "www.who.int"],
    },
    ("geo_localized", "openai"): {
        "type": "web_search",
        "user_location": {
            "type": "approximate",
            "country": "GB",
            "city": "London",
            "timezone": "Europe/London",
        },
    },
    ("geo_localized", "openai-chat"): {
        "web_search_options": {
            "user_location": {
                "type": "approximate",
                "approximate": {"country": "GB", "city": "London", "timezone": "Europe/London"},
            }
        }
    },
    ("geo_localized", "anthropic"): {
        "type": "web_search_20250305",
        "name": "web_search",
        "user_location": {
            "type": "approximate",
            "country": "GB",
            "city": "London",
            "timezone": "Europe/London",
        },
    },
    ("inline", "openai"): {"type": "web_search", "external_web_access": False},
}


@pytest.mark.parametrize(("example", "provider"), list(WIRE))
def test_what_each_example_declares(example: str, provider: str) -> None:
    runner = Provider(provider, WEATHER)

    runner.run(seed_section(example))

    assert runner.declared == [[WIRE[example, provider]]]
