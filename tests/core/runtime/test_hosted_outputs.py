"""Hosted tools offline: provider-shaped items go through codecs into typed outputs."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import HostedTool, PromptEvaluationError, PromptTemplate, Section
from affordance.adapters import ModelRequest
from affordance.plugins import PluginHost, hookimpl
from affordance.plugins.specs import CodecSpec, HostedToolKindSpec
from affordance.runtime import AllowList, EventBus, ToolCallDenied, ToolExecutor
from affordance.runtime.model.turn import ProviderTurn
from affordance.runtime.record.response import PromptResponse
from affordance.testing import ScriptedAdapter
from affordance_testing.contract_runs import run
from affordance_testing.faults import MODES, Mode


@dataclass(frozen=True, slots=True)
class SearchConfig:
    live: bool = True


@dataclass(frozen=True, slots=True)
class SearchResult:
    text: str
    urls: tuple[str, ...]


class FakeSearchCodec:
    kind = "fake_search"  # a kind no installed plugin registers

    def serialize(self, tool: HostedTool[SearchConfig]) -> dict[str, Any]:
        return {"type": "web_search"}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[SearchConfig]
    ) -> SearchResult | None:
        calls = [i for i in response_items if i.get("type") == "web_search_call"]
        if not calls:
            return None
        urls = tuple(s["url"] for c in calls for s in c.get("sources", ()))
        return SearchResult(text="found", urls=urls)


SEARCH = HostedTool(kind="fake_search", name="search", description="Search.", config=SearchConfig())
PROMPT = PromptTemplate(sections=[Section(title="Research", hosted_tools=[SEARCH])])
ITEMS = ({"type": "web_search_call", "sources": [{"url": "https://a.example"}]},)


def test_hosted_items_are_parsed_by_the_codec_into_hosted_outputs():
    adapter = ScriptedAdapter(
        [ProviderTurn(text="answer", hosted_items=ITEMS)], codecs={"fake_search": FakeSearchCodec()}
    )
    response = adapter.evaluate(PROMPT)
    assert response.hosted_outputs == {"search": SearchResult("found", ("https://a.example",))}
    assert adapter.requests[0].hosted_tools == (SEARCH,)


def test_a_response_without_the_tools_items_has_no_output():
    adapter = ScriptedAdapter(
        [ProviderTurn(text="answer", hosted_items=({"type": "message"},))],
        codecs={"fake_search": FakeSearchCodec()},
    )
    assert adapter.evaluate(PROMPT).hosted_outputs == {}


def test_codecs_registered_by_plugins_for_a_provider_are_used(monkeypatch):
    class Plugin:
        @hookimpl
        def affordance_register_codecs(self) -> list[CodecSpec]:
            return [
                CodecSpec(
                    provider="openai",
                    kind="fake_search",
                    factory=f"{__name__}:FakeSearchCodec",
                )
            ]

    host = PluginHost(autoload=False)
    host.register(Plugin(), name="fake-search")
    monkeypatch.setattr("affordance.plugins.registry", host.registry)
    adapter = ScriptedAdapter([ProviderTurn(text="answer", hosted_items=ITEMS)], codecs_of="openai")
    assert adapter.evaluate(PROMPT).hosted_outputs["search"] == SearchResult(
        "found", ("https://a.example",)
    )


def test_the_policy_keeps_a_hosted_tool_out_of_the_request_and_records_it():
    bus = EventBus()
    denied: list[ToolCallDenied] = []
    bus.subscribe(ToolCallDenied, denied.append)
    adapter = ScriptedAdapter(
        [ProviderTurn(text="answer")], executor=ToolExecutor(policy=AllowList([]))
    )
    adapter.evaluate(PROMPT, bus=bus)
    assert adapter.requests[0].hosted_tools == ()
    assert [(d.name, d.reason) for d in denied] == [
        ("search", "tool 'search' is not on the allowlist")
    ]


class BrokenReader(FakeSearchCodec):
    def parse_output(self, response_items: Any, tool: Any) -> SearchResult | None:
        raise SystemExit("a codec bug")


def test_a_codec_failing_to_read_loses_its_output_and_the_run_goes_on(caplog):
    adapter = ScriptedAdapter(
        [ProviderTurn(text="answer", hosted_items=ITEMS)], codecs={"fake_search": BrokenReader()}
    )
    with caplog.at_level("WARNING", logger="affordance.hosted"):
        response = adapter.evaluate(PROMPT)
    assert (response.text, response.hosted_outputs) == ("answer", {})
    (record,) = caplog.records
    assert record.affordance_error_code == "SystemExit"  # type: ignore[attr-defined]
    assert "a.example" not in repr(record.__dict__)


class BrokenWriter(FakeSearchCodec):
    def serialize(self, tool: Any) -> dict[str, Any]:
        raise SystemExit("a codec bug")


def test_a_codec_failing_to_declare_is_an_error_before_any_request():
    class Wire(ScriptedAdapter):
        def send(self, request: ModelRequest) -> ProviderTurn:
            self.connection.hosted_declarations(request)  # what a provider plugin does first
            return super().send(request)

    adapter = Wire([ProviderTurn(text="answer")], codecs={"fake_search": BrokenWriter()})
    with pytest.raises(
        PromptEvaluationError, match="failed to declare hosted tool 'search'"
    ) as info:
        adapter.evaluate(PROMPT)
    assert info.value.phase == "render"
    assert adapter.requests == []


# -- the output type a kind is registered with ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class FetchConfig:
    pass


@dataclass(frozen=True, slots=True)
class FetchResult:
    url: str


class FetchCodec:
    kind = "fake_fetch"

    def serialize(self, tool: HostedTool[FetchConfig]) -> dict[str, Any]:
        return {"type": "fetch"}

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[FetchConfig]
    ) -> FetchResult | None:
        urls = [i["url"] for i in response_items if i.get("type") == "fetch_call"]
        return FetchResult(urls[0]) if urls else None


class StringSearchCodec(FakeSearchCodec):
    """Reads the search, but returns it as a plain string, not the kind's SearchResult."""

    def parse_output(self, response_items: Any, tool: Any) -> Any:
        result = super().parse_output(response_items, tool)
        return None if result is None else f"found {' '.join(result.urls)}"


class SearchAndFetch:
    """Defines both kinds with their config and output types (this module's), and their codecs
    for ``openai``: ``search_codec`` for the search."""

    def __init__(self, search_codec: str = "FakeSearchCodec", search_output: str = "SearchResult"):
        self.search_codec = search_codec
        self.search_output = search_output

    @hookimpl
    def affordance_register_hosted_tool_kinds(self) -> list[HostedToolKindSpec]:
        return [
            HostedToolKindSpec(
                "fake_search", f"{__name__}:SearchConfig", f"{__name__}:{self.search_output}"
            ),
            HostedToolKindSpec("fake_fetch", f"{__name__}:FetchConfig", f"{__name__}:FetchResult"),
        ]

    @hookimpl
    def affordance_register_codecs(self) -> list[CodecSpec]:
        return [
            CodecSpec("openai", "fake_search", f"{__name__}:{self.search_codec}"),
            CodecSpec("openai", "fake_fetch", f"{__name__}:FetchCodec"),
        ]


FETCH = HostedTool(kind="fake_fetch", name="fetch", description="Fetch.", config=FetchConfig())
BOTH = PromptTemplate(sections=[Section(title="Research", hosted_tools=[SEARCH, FETCH])])
MARKER = "zq-CONTENT-5e2a"  # the content_free_logs fixture fails a test whose logs carry it
MARKED_URL = f"https://a.example/{MARKER}"
BOTH_ITEMS = (
    {"type": "web_search_call", "sources": [{"url": MARKED_URL}]},
    {"type": "fetch_call", "url": "https://b.example"},
)


def offline_run(plugin: SearchAndFetch, mode: Mode) -> PromptResponse[Any]:
    """``BOTH`` evaluated one of the four ways by a scripted adapter reading ``BOTH_ITEMS``
    through the codecs ``plugin`` registers, checked against the types it registers."""
    host = PluginHost(autoload=False)
    host.register(plugin, name="search-and-fetch")
    registry = host.registry()

    def make(kind: str) -> ScriptedAdapter:
        turn = ProviderTurn(text="answer", hosted_items=BOTH_ITEMS)
        return ScriptedAdapter([turn], codecs_of="openai", registry=registry)

    return run(make, mode, BOTH)


def hosted_warnings(logs: Any) -> list[logging.LogRecord]:
    """The warnings on ``affordance.hosted`` among what ``content_free_logs`` captured."""
    return [r for r in logs.records if r.name == "affordance.hosted" and r.levelname == "WARNING"]


@pytest.mark.parametrize("mode", MODES)
def test_outputs_of_the_registered_types_are_kept(content_free_logs, mode):
    response = offline_run(SearchAndFetch(), mode)

    assert response.hosted_outputs == {
        "search": SearchResult("found", (MARKED_URL,)),
        "fetch": FetchResult("https://b.example"),
    }
    assert hosted_warnings(content_free_logs) == []


@pytest.mark.parametrize("mode", MODES)
def test_an_output_not_of_the_kinds_registered_type_is_dropped_and_the_rest_survives(
    content_free_logs, mode
):
    response = offline_run(SearchAndFetch(search_codec="StringSearchCodec"), mode)

    assert (response.text, response.turns) == ("answer", 1)
    assert response.hosted_outputs == {"fetch": FetchResult("https://b.example")}
    (record,) = hosted_warnings(content_free_logs)
    assert record.getMessage() == (
        "hosted tool search: its fake_search codec returned builtins.str, but kind fake_search "
        f"is registered with output {__name__}.SearchResult; the output is dropped"
    )
    assert {
        name: getattr(record, name)
        for name in (
            "affordance_hosted_tool",
            "affordance_kind",
            "affordance_problem",
            "affordance_output_type",
            "affordance_expected_type",
        )
    } == {
        "affordance_hosted_tool": "search",
        "affordance_kind": "fake_search",
        "affordance_problem": "wrong output type",
        "affordance_output_type": "builtins.str",
        "affordance_expected_type": f"{__name__}.SearchResult",
    }  # and never the output (content_free_logs checks the marker in its URL)


def test_an_output_type_that_cannot_be_loaded_drops_that_output_and_the_run_goes_on(
    content_free_logs,
):
    response = offline_run(SearchAndFetch(search_output="NoSuchResult"), "evaluate")

    assert response.text == "answer"
    assert response.hosted_outputs == {"fetch": FetchResult("https://b.example")}
    (record,) = hosted_warnings(content_free_logs)
    assert record.getMessage() == (
        "hosted tool search: the output type of kind fake_search could not be checked "
        "(PluginUnavailableError); its output is dropped"
    )
    assert (record.affordance_error_code, record.affordance_problem) == (
        "PluginUnavailableError",
        "output type not checked",
    )


def test_codecs_handed_over_are_not_checked_against_the_registry():
    """Without ``codecs_of`` the offline adapter asks no registry, as before: a codec of a kind
    no plugin registers is tested on its own."""
    adapter = ScriptedAdapter(
        [ProviderTurn(text="answer", hosted_items=ITEMS)],
        codecs={"fake_search": StringSearchCodec()},
    )
    assert adapter.evaluate(PROMPT).hosted_outputs == {"search": "found https://a.example"}
