"""Prices from genai-prices on a real run: the OpenAI SDK against the loopback server, each
turn's usage priced as genai-prices prices it (cached input included), and a cost limit that
stops the run before its next request."""

from __future__ import annotations

import pytest
from loopback import CHAT_COMPLETIONS_PATH, LoopbackServer, chat_text, chat_tool_calls, chat_usage

from affordance import (
    GenaiPrices,
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
)
from affordance_openai import OpenAIAdapter

genai_prices = pytest.importorskip("genai_prices", reason="genai-prices needs Python 3.11+")

MODEL = "gpt-4o"


def lookup(params: None) -> ToolResult[str]:
    return ToolResult.ok("42")


def prompt() -> PromptTemplate[None]:
    tool = Tool[None, str](name="lookup", description="Look it up.", handler=lookup)
    return PromptTemplate(
        name="costs", sections=[MarkdownSection(title="Task", template="Look.", tools=[tool])]
    )


def expected(input_tokens: int, output_tokens: int, cached: int = 0) -> float:
    usage = genai_prices.Usage(
        input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cached
    )
    return float(genai_prices.calc_price(usage, MODEL, provider_id="openai").total_price)


def script(server: LoopbackServer) -> None:
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls(
            [("call_1", "lookup", {})], usage=chat_usage(12_000, 300, cached_tokens=8_000)
        ),
        chat_text("It is 42.", usage=chat_usage(12_500, 40)),
    )


def test_a_run_with_genai_prices_reports_each_turns_cost_summed(server, clients):
    script(server)
    adapter = OpenAIAdapter(MODEL, client=clients.sync(), api="chat", prices=GenaiPrices())
    response = adapter.evaluate(prompt())
    first, second = expected(12_000, 300, cached=8_000), expected(12_500, 40)
    assert response.usage.cost == pytest.approx(first + second)
    assert first < expected(12_000, 300)  # cached input is priced as cached


def test_a_cost_limit_uses_genai_prices_and_stops_before_the_next_request(server, clients):
    script(server)
    adapter = OpenAIAdapter(MODEL, client=clients.sync(), api="chat")
    limit = expected(12_000, 300, cached=8_000) / 2
    with pytest.raises(UsageLimitExceeded) as stopped:
        adapter.evaluate(prompt(), limits=UsageLimits(cost=limit))
    assert stopped.value.limit == "cost"
    assert len(server.requests) == 1  # the first answer crossed it: its call did not run
