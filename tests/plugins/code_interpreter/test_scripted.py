"""Offline: ``ScriptedAdapter(codecs_of=PROVIDER)`` reads each provider's code runs with the
installed codecs, plain and streamed."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_tools import SUM_OUTPUT, codec_items, load

from affordance import MarkdownSection, PromptTemplate
from affordance.runtime.model.turn import ProviderTurn
from affordance.testing import ScriptedAdapter
from affordance_code_interpreter import CodeInterpreterResult, CodeInterpreterSection

SAMPLES = {
    "openai": "openai_responses_code_interpreter",
    "anthropic": "anthropic_code_execution",
    "google": "google_code_execution",
}


def prompt() -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="What is the sum of 1 to 100?")
    return PromptTemplate(ns="tests", key="sum", sections=[task, CodeInterpreterSection()])


@pytest.mark.parametrize("provider", list(SAMPLES))
def test_every_provider_shape_reads_the_same_plain_and_streamed(provider: str) -> None:
    items = tuple(codec_items(provider, load(SAMPLES[provider])))
    turn = ProviderTurn(text="5050", hosted_items=items)
    adapter = ScriptedAdapter([turn, turn], codecs_of=provider)

    plain = adapter.evaluate(prompt())
    with adapter.stream(prompt()) as events:
        list(events)

    result = plain.hosted_outputs["code_interpreter"]
    assert isinstance(result, CodeInterpreterResult)
    assert result.output == SUM_OUTPUT
    assert events.response is not None
    assert events.response.hosted_outputs == plain.hosted_outputs


def test_a_disabled_section_offers_no_code_interpreter() -> None:
    task = MarkdownSection(title="Task", template="Sum it.")
    section = CodeInterpreterSection(enabled=lambda: False)
    adapter = ScriptedAdapter([ProviderTurn(text="5050")], codecs_of="openai")

    adapter.evaluate(PromptTemplate(ns="t", key="k", sections=[task, section]))

    assert adapter.requests[0].hosted_tools == ()
