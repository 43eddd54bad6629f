"""Costs: each turn priced by the run's prices into ``Usage.cost``, an unknown price making the
whole cost unknown, and a cost limit stopping a run before the request that would cross it —
refused before anything is sent when a model's price is unknown."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run

from affordance import (
    MarkdownSection,
    PromptEvaluationError,
    PromptTemplate,
    Tool,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
)
from affordance.adapters import Usage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Query:
    q: str


class PerToken:
    """A price list: a dollar per thousand tokens, in or out, for the models it knows."""

    def __init__(self, *known: str) -> None:
        self.known = known
        self.asked: list[tuple[str, str | None]] = []

    def cost(self, usage: Usage, *, provider: str, model: str | None) -> float | None:
        self.asked.append((provider, model))
        if model not in self.known:
            return None
        return (usage.input_tokens + usage.output_tokens) / 1000


def prompt() -> PromptTemplate[None]:
    def search(params: Query) -> ToolResult[str]:
        return ToolResult.ok(f"found {params.q}")

    tool = Tool[Query, str](name="search", description="Search.", handler=search)
    return PromptTemplate(
        name="priced", sections=[MarkdownSection(title="Task", template="Go.", tools=[tool])]
    )


def script() -> list[object]:
    return [
        tool_calls(tool_call("search", {"q": "a"}), usage=Usage(100, 50)),
        tool_calls(tool_call("search", {"q": "b"}), usage=Usage(200, 50)),
        text("done", usage=Usage(300, 50)),
    ]


def adapter(prices: PerToken | None, steps: list[object] | None = None) -> ScriptedAdapter:
    scripted = ScriptedAdapter(steps if steps is not None else script(), prices=prices)
    scripted.connection.settings = Settings("scripted-1")  # the model name prices look up
    return scripted


@dataclass(frozen=True)
class Settings:
    model: str


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_turn_is_priced_and_the_run_sums_its_cost(driver):
    prices = PerToken("scripted-1")
    response, _ = run(adapter(prices), prompt(), driver)
    assert response.usage == Usage(600, 150, cost=0.75)
    assert set(prices.asked) == {("scripted", "scripted-1")}


def test_one_unknown_price_makes_the_cost_unknown():
    response = adapter(PerToken()).evaluate(prompt())
    assert response.usage.cost is None
    assert response.usage.input_tokens == 600


def test_without_prices_there_is_no_cost():
    assert adapter(None).evaluate(prompt()).usage.cost is None


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_cost_limit_stops_before_the_request_that_would_cross_it(driver):
    scripted, priced = adapter(PerToken("scripted-1")), prompt()
    with pytest.raises(UsageLimitExceeded) as stopped:
        run(scripted, priced, driver, limits=UsageLimits(cost=0.35))
    # after two turns: 0.15 + 0.25 = 0.40, past 0.35: the calls of turn 2 do not run
    assert (stopped.value.limit, stopped.value.maximum) == ("cost", 0.35)
    assert stopped.value.reached == pytest.approx(0.40)
    assert scripted.sent == 2
    resumed, _ = run(
        scripted,
        priced,
        driver,
        session=stopped.value.session,
        resume=stopped.value.run_id,
        limits=UsageLimits(cost=1.0),
    )
    assert resumed.text == "done"
    assert resumed.usage.cost == pytest.approx(0.75)


def test_a_cost_limit_on_a_model_without_a_price_is_refused_before_anything_is_sent():
    scripted = adapter(PerToken("another-model"))
    with pytest.raises(PromptEvaluationError, match="price of model 'scripted-1'") as refused:
        scripted.evaluate(prompt(), limits=UsageLimits(cost=1.0))
    assert refused.value.phase == "limits"
    assert scripted.sent == 0


@pytest.mark.parametrize("value", [-0.5, True, "1"])
def test_a_cost_limit_must_be_a_non_negative_number(value):
    with pytest.raises(ValueError, match="non-negative number"):
        UsageLimits(cost=value)


def test_usage_sums_costs_and_an_unknown_one_stays_unknown():
    assert Usage(1, 1, cost=0.5) + Usage(2, 2, cost=0.25) == Usage(3, 3, cost=0.75)
    assert (Usage(1, 1, cost=0.5) + Usage(2, 2)).cost is None
