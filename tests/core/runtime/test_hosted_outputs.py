"""Hosted tools offline: provider-shaped items go through codecs into typed outputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from affordance import HostedTool, PromptEvaluationError, PromptTemplate, Section
from affordance.adapters import ModelRequest
from affordance.plugins import PluginHost, hookimpl
from affordance.plugins.specs import CodecSpec
from affordance.runtime import AllowList, EventBus, ToolCallDenied, ToolExecutor
from affordance.runtime.turn import ProviderTurn
from affordance.testing import ScriptedAdapter


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
            self.hosted_declarations(request)  # what a provider plugin does first
            return super().send(request)

    adapter = Wire([ProviderTurn(text="answer")], codecs={"fake_search": BrokenWriter()})
    with pytest.raises(
        PromptEvaluationError, match="failed to declare hosted tool 'search'"
    ) as info:
        adapter.evaluate(PROMPT)
    assert info.value.phase == "render"
    assert adapter.requests == []
