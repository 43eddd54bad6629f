"""A hosted tool obeys the rules of local tools: it reaches the request only while its section
is enabled and fully visible, and only if the executor's policy allows it (a denial is an
event, recorded once)."""

from __future__ import annotations

from typing import Any

from hosted_tools import ANSWER, load
from hosted_tools.runs import PROVIDER_WIRES

from affordance import (
    AllowList,
    EventBus,
    MarkdownSection,
    PromptTemplate,
    SectionVisibility,
    ToolExecutor,
)
from affordance.runtime.model.turn import ProviderTurn
from affordance.runtime.record.events import ToolCallDenied
from affordance.testing import ScriptedAdapter
from affordance_web_search import WebSearchSection, web_search_tool

ITEMS = tuple(load("openai_responses_web_search")["output"])


def turn() -> ProviderTurn:
    return ProviderTurn(text=ANSWER, hosted_items=ITEMS)


def prompt(*sections: Any) -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="Wie ist das Wetter in Zürich?")
    return PromptTemplate(ns="tests", key="weather", sections=[task, *sections])


def test_a_disabled_section_offers_no_hosted_tool() -> None:
    adapter = ScriptedAdapter([turn()], codecs_of="openai")

    response = adapter.evaluate(prompt(WebSearchSection(enabled=lambda: False)))

    assert adapter.requests[0].hosted_tools == ()
    assert response.hosted_outputs == {}


def test_a_summarized_section_offers_it_only_once_opened() -> None:
    section = WebSearchSection(
        visibility=SectionVisibility.SUMMARY, summary="Web search is available."
    )
    adapter = ScriptedAdapter([turn(), turn()], codecs_of="openai")

    adapter.evaluate(prompt(section))
    opened = adapter.evaluate(
        prompt(section), visibility_overrides={("web_search",): SectionVisibility.FULL}
    )

    assert adapter.requests[0].hosted_tools == ()
    assert [t.name for t in adapter.requests[1].hosted_tools] == ["web_search"]
    assert "web_search" in opened.hosted_outputs


def test_a_hosted_tool_attached_inline_obeys_its_section_too() -> None:
    section = MarkdownSection(
        title="Research",
        template="Look it up.",
        hosted_tools=[web_search_tool(name="cached_search")],
        enabled=lambda: False,
    )
    adapter = ScriptedAdapter([turn()], codecs_of="openai")

    adapter.evaluate(prompt(section))

    assert adapter.requests[0].hosted_tools == ()


def test_the_allowlist_keeps_a_hosted_tool_out_of_the_request_and_says_so() -> None:
    bus = EventBus()
    denied: list[ToolCallDenied] = []
    bus.subscribe(ToolCallDenied, denied.append)
    executor = ToolExecutor(policy=AllowList(["lookup"]))
    adapter = ScriptedAdapter([ProviderTurn(text="No search.")], executor=executor)

    adapter.evaluate(prompt(WebSearchSection()), bus=bus)

    assert adapter.requests[0].hosted_tools == ()
    assert [(d.name, d.reason) for d in denied] == [
        ("web_search", "tool 'web_search' is not on the allowlist")
    ]


def test_an_allowed_hosted_tool_is_offered() -> None:
    executor = ToolExecutor(policy=AllowList(["web_search"]))
    adapter = ScriptedAdapter([turn()], executor=executor, codecs_of="openai")

    response = adapter.evaluate(prompt(WebSearchSection()))

    assert [t.name for t in adapter.requests[0].hosted_tools] == ["web_search"]
    assert "web_search" in response.hosted_outputs


def test_a_denied_hosted_tool_has_no_output_even_if_items_of_its_kind_come_back() -> None:
    allowed = web_search_tool(name="web_search")
    denied = web_search_tool(name="cached_search")
    section = MarkdownSection(title="Research", template="Look.", hosted_tools=[allowed, denied])
    executor = ToolExecutor(policy=AllowList(["web_search"]))
    adapter = ScriptedAdapter([turn()], executor=executor, codecs_of="openai")

    response = adapter.evaluate(prompt(section))

    assert list(response.hosted_outputs) == ["web_search"]


def test_on_the_wire_the_denied_tool_is_absent() -> None:
    wire = PROVIDER_WIRES["openai"]
    executor = ToolExecutor(policy=AllowList([]))

    with wire.running(executor=executor) as (server, adapter):
        wire.script_plain(server, load("openai_responses_web_search"))
        response = adapter.evaluate(prompt(WebSearchSection()))

    assert "tools" not in server.requests[0].body
    assert response.hosted_outputs == {}
