"""Usage limits: a run stops before the request or the tool calls that would cross one, raises
``UsageLimitExceeded`` with its usage and session, and resumes with a higher limit — nothing
lost, nothing sent or run twice — on every entry point alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from drivers import DRIVERS, run

from affordance import (
    MarkdownSection,
    OutputRejected,
    PromptEvaluationError,
    PromptTemplate,
    Session,
    Tool,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
    approve,
)
from affordance.adapters import PAUSED, ToolResultMessage, Usage
from affordance.runtime import PromptResponse
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Query:
    q: str


def counted_prompt(calls: list[str]) -> PromptTemplate[None]:
    def search(params: Query) -> ToolResult[str]:
        calls.append(params.q)
        return ToolResult.ok(f"found {params.q}")

    def drop(params: Query) -> ToolResult[str]:
        calls.append(f"drop {params.q}")
        return ToolResult.ok("dropped")

    tools = [
        Tool[Query, str](name="search", description="Search.", handler=search),
        Tool[Query, str](name="drop", description="Drop.", handler=drop, destructive=True),
    ]
    return PromptTemplate(
        name="limited", sections=[MarkdownSection(title="Task", template="Go.", tools=tools)]
    )


def search(q: str) -> object:
    return tool_calls(tool_call("search", {"q": q}))


def resumed(
    adapter: ScriptedAdapter,
    prompt: PromptTemplate[None],
    driver: str,
    stopped: UsageLimitExceeded,
    limits: UsageLimits,
) -> tuple[PromptResponse[Any], list[object]]:
    """Resume the run ``stopped`` at a limit, in its session, under ``limits``."""
    return run(
        adapter, prompt, driver, session=stopped.session, resume=stopped.run_id, limits=limits
    )


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_requests_limit_stops_before_the_next_request_and_resumes_where_it_stopped(driver):
    calls: list[str] = []
    prompt = counted_prompt(calls)
    adapter = ScriptedAdapter([search("a"), search("b"), text("done")])
    with pytest.raises(UsageLimitExceeded) as info:
        run(adapter, prompt, driver, limits=UsageLimits(requests=2))
    error = info.value
    assert (error.limit, error.maximum, error.reached, error.phase) == ("requests", 2, 3, "limits")
    assert (adapter.sent, calls) == (2, ["a", "b"])  # both turns' calls ran, then it stopped
    assert error.usage == Usage(20, 10)
    response, _ = resumed(adapter, prompt, driver, error, UsageLimits(requests=3))
    assert response.text == "done"
    assert response.run_id == error.run_id
    assert (adapter.sent, calls) == (3, ["a", "b"])  # nothing sent or run twice
    results = [m for m in response.messages if isinstance(m, ToolResultMessage)]
    assert [m.content for m in results] == ["found a", "found b"]
    assert response.usage == Usage(30, 15)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_tool_calls_limit_stops_before_the_calls_that_would_cross_it(driver):
    calls: list[str] = []
    prompt = counted_prompt(calls)
    two = tool_calls(tool_call("search", {"q": "x"}), tool_call("search", {"q": "y"}))
    adapter = ScriptedAdapter([search("a"), two, text("done")])
    with pytest.raises(UsageLimitExceeded) as info:
        run(adapter, prompt, driver, limits=UsageLimits(tool_calls=2))
    assert (info.value.limit, info.value.reached) == ("tool_calls", 3)
    assert calls == ["a"]  # the second turn's calls did not run
    response, _ = resumed(adapter, prompt, driver, info.value, UsageLimits(tool_calls=3))
    # one turn's calls run concurrently under the async drivers: their order is not fixed
    assert (calls[0], sorted(calls[1:])) == ("a", ["x", "y"])
    assert response.text == "done"
    assert len(response.tool_results) == 3


@pytest.mark.parametrize(
    ("limits", "name", "reached"),
    [
        # after turn 1 (10 in, 5 out): the next request reads at least 10 more input tokens
        (UsageLimits(input_tokens=19), "input_tokens", 20),
        (UsageLimits(total_tokens=24), "total_tokens", 25),
        (UsageLimits(output_tokens=5), "output_tokens", 5),
    ],
)
@pytest.mark.parametrize("driver", DRIVERS)
def test_a_token_limit_stops_before_a_request_certain_to_cross_it(driver, limits, name, reached):
    calls: list[str] = []
    adapter = ScriptedAdapter([search("a"), text("done")])
    with pytest.raises(UsageLimitExceeded) as info:
        run(adapter, counted_prompt(calls), driver, limits=limits)
    assert (info.value.limit, info.value.reached) == (name, reached)
    assert (adapter.sent, calls) == (1, ["a"])


def _reject(answer: str) -> None:
    if answer != "good":
        raise OutputRejected("say good")


@pytest.mark.parametrize(
    ("first", "validators"),
    [
        # the provider paused its own turn: the loop continues it with another request
        (text("half ", finish_reason=PAUSED, usage=Usage(10, 5)), ()),
        # a rejected final answer: the loop asks again with another request
        (text("bad", usage=Usage(10, 5)), (_reject,)),
    ],
    ids=["paused", "rejected"],
)
@pytest.mark.parametrize("driver", DRIVERS)
def test_a_turn_without_calls_that_asks_again_is_held_to_the_token_limits(
    driver, first, validators
):
    prompt = PromptTemplate[None](
        name="asked-again",
        sections=[MarkdownSection(title="Task", template="Go.")],
        output_validators=validators,
    )
    adapter = ScriptedAdapter([first, text("good")])
    with pytest.raises(UsageLimitExceeded) as info:
        run(adapter, prompt, driver, limits=UsageLimits(input_tokens=19))
    # after the first turn (10 in) the next request reads at least 10 more: never sent
    assert (info.value.limit, info.value.reached, adapter.sent) == ("input_tokens", 20, 1)
    response, _ = resumed(adapter, prompt, driver, info.value, UsageLimits(input_tokens=20))
    assert (response.text, adapter.sent) == ("half good" if validators == () else "good", 2)


def test_an_answer_past_a_token_limit_does_not_get_its_calls_run():
    calls: list[str] = []
    adapter = ScriptedAdapter([search("a"), text("done")])
    with pytest.raises(UsageLimitExceeded) as info:
        adapter.evaluate(counted_prompt(calls), limits=UsageLimits(total_tokens=12))
    assert (info.value.limit, info.value.reached) == ("total_tokens", 15)
    assert calls == []


def test_a_final_answer_past_a_limit_is_returned_not_thrown_away():
    adapter = ScriptedAdapter([text("done", usage=Usage(100, 50))])
    response = adapter.evaluate(counted_prompt([]), limits=UsageLimits(total_tokens=10))
    assert response.text == "done"
    assert response.usage.total_tokens == 150


def test_limits_within_bounds_change_nothing():
    calls: list[str] = []
    script = [search("a"), text("done")]
    limited = ScriptedAdapter(script)
    plain = ScriptedAdapter(script)
    limits = UsageLimits(requests=2, tool_calls=1, total_tokens=30)
    a = limited.evaluate(counted_prompt(calls), limits=limits)
    b = plain.evaluate(counted_prompt(calls))
    assert (a.text, a.usage, a.turns) == (b.text, b.usage, b.turns)


def test_a_limit_and_a_confirmation_in_one_run():
    calls: list[str] = []
    prompt = counted_prompt(calls)
    drop = tool_calls(tool_call("drop", {"q": "z"}, call_id="call_drop"))
    adapter = ScriptedAdapter([drop, search("a"), text("done")])
    limits = UsageLimits(requests=2)
    waiting = adapter.evaluate(prompt, limits=limits)
    assert waiting.needs_confirmation
    with pytest.raises(UsageLimitExceeded) as info:
        adapter.evaluate(
            prompt, session=waiting.session, confirmations={"call_drop": approve()}, limits=limits
        )
    assert calls == ["drop z", "a"]
    response = adapter.evaluate(
        prompt,
        session=info.value.session,
        resume=info.value.run_id,
        limits=UsageLimits(requests=3),
    )
    assert response.text == "done"


def test_resuming_refuses_what_it_cannot_resume():
    calls: list[str] = []
    prompt = counted_prompt(calls)
    adapter = ScriptedAdapter([search("a"), text("done")])
    with pytest.raises(UsageLimitExceeded) as info:
        adapter.evaluate(prompt, limits=UsageLimits(requests=1))
    session, run_id = info.value.session, info.value.run_id
    with pytest.raises(PromptEvaluationError, match="no run stopped by a limit"):
        adapter.evaluate(prompt, session=Session(), resume=run_id)
    with pytest.raises(PromptEvaluationError, match="needs its session"):
        adapter.evaluate(prompt, resume=run_id)
    with pytest.raises(PromptEvaluationError, match="not both"):
        adapter.evaluate(prompt, session=session, resume=run_id, confirmations={})
    with pytest.raises(PromptEvaluationError, match="resume it with that prompt"):
        adapter.evaluate(counted_prompt(calls), session=session, resume=run_id)
    # still resumable after the refusals; once resumed, it is gone from the session
    assert adapter.evaluate(prompt, session=session, resume=run_id).text == "done"
    with pytest.raises(PromptEvaluationError, match="no run stopped by a limit"):
        adapter.evaluate(prompt, session=session, resume=run_id)


def test_resuming_under_the_same_limit_stops_again_at_once():
    adapter = ScriptedAdapter([search("a"), text("done")])
    prompt = counted_prompt([])
    limits = UsageLimits(requests=1)
    with pytest.raises(UsageLimitExceeded) as first:
        adapter.evaluate(prompt, limits=limits)
    with pytest.raises(UsageLimitExceeded) as second:
        adapter.evaluate(
            prompt, session=first.value.session, resume=first.value.run_id, limits=limits
        )
    assert second.value.run_id == first.value.run_id
    assert adapter.sent == 1


@pytest.mark.parametrize("value", [-1, 1.5, True, "3"])
def test_limits_must_be_non_negative_ints(value):
    with pytest.raises(ValueError, match="non-negative int"):
        UsageLimits(requests=value)


def test_near_holds_whenever_a_check_would_find_a_token_or_cost_limit_crossed():
    """A run far from its limits asks no check (``UsageLimits.near`` is its one comparison):
    near must hold for every usage at which a check finds a token or cost limit crossed."""
    amounts = (0, 1, 9, 10, 11, 20, 30)
    limits_tried = [
        UsageLimits(input_tokens=10),
        UsageLimits(output_tokens=10),
        UsageLimits(total_tokens=20),
        UsageLimits(input_tokens=30, output_tokens=1, total_tokens=25),
        UsageLimits(requests=3, tool_calls=2),
        UsageLimits(input_tokens=0),
        UsageLimits(cost=1.0),
    ]
    checked = 0
    for limits in limits_tried:
        for spent_in in amounts:
            for spent_out in amounts:
                for cost in (None, 0.5, 1.0, 2.0):
                    usage = Usage(spent_in, spent_out, cost=cost)
                    for last in amounts:
                        crossed = limits.before_request(0, usage, last)
                        after_answer = limits.before_calls(0, 0, usage)
                        if crossed is not None or after_answer is not None:
                            checked += 1
                            assert limits.near(usage, last), (limits, usage, last)
    assert checked > 1000
    assert not UsageLimits(requests=3, tool_calls=2).near(Usage(10**9, 10**9), 10**9)
    assert UsageLimits(cost=1.0).near(Usage(), 0)  # a price moves without a token count


@pytest.mark.parametrize("driver", DRIVERS)
def test_new_limits_on_resume_are_watched_from_the_resumed_request(driver):
    """A run stopped far from a token limit, resumed under a lower one it has already
    reached: the resumed run stops again before sending (its watch is computed anew)."""
    calls: list[str] = []
    prompt = counted_prompt(calls)
    adapter = ScriptedAdapter([search("a"), search("b"), text("done")])
    with pytest.raises(UsageLimitExceeded) as first:
        run(adapter, prompt, driver, limits=UsageLimits(requests=1))
    assert first.value.limit == "requests"
    with pytest.raises(UsageLimitExceeded) as second:
        resumed(adapter, prompt, driver, first.value, UsageLimits(total_tokens=15))
    assert (second.value.limit, second.value.reached) == ("total_tokens", 25)
    assert (adapter.sent, calls) == (1, ["a"])
