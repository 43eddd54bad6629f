"""A prompt as a tool: the nested run goes through the outer run's provider (or its own), its
events reach the outer bus, its usage rolls up, and a destructive call inside it pauses the
outer run — approving the nested call by its id resumes both, on every entry point."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run

from affordance import (
    ConfirmationRequired,
    EvaluationStarted,
    EventBus,
    MarkdownSection,
    PromptEvaluationError,
    PromptExecuted,
    PromptRequest,
    PromptTemplate,
    PromptTool,
    Tool,
    ToolContext,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
    approve,
    deny,
)
from affordance.adapters import ToolResultMessage, Usage, UserMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Target:
    name: str


@dataclass(frozen=True)
class Finding:
    answer: str
    confidence: float


def research_prompt(dropped: list[str] | None = None) -> PromptTemplate[None]:
    def drop(params: Target) -> ToolResult[str]:
        assert dropped is not None
        dropped.append(params.name)
        return ToolResult.ok(f"dropped {params.name}")

    tools = [Tool[Target, str](name="drop", description="Drop.", handler=drop, destructive=True)]
    return PromptTemplate(
        name="research",
        sections=[MarkdownSection(title="Role", template="You research.", tools=tools)],
    )


def outer_prompt(tool: Tool[object, object]) -> PromptTemplate[None]:
    return PromptTemplate(
        name="outer", sections=[MarkdownSection(title="Task", template="Help.", tools=[tool])]
    )


def ask(request: str, call_id: str = "call_outer") -> object:
    return tool_calls(tool_call("research", {"request": request}, call_id=call_id))


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_nested_run_answers_the_call_and_its_usage_rolls_up(driver):
    adapter = ScriptedAdapter([ask("find X"), text("X is 42"), text("done")])
    tool = PromptTool(research_prompt(), name="research", description="Research a question.")
    response, _ = run(adapter, outer_prompt(tool), driver)
    assert response.text == "done"
    (result,) = response.tool_results
    assert (result.name, result.result.value, result.params) == (
        "research",
        "X is 42",
        PromptRequest("find X"),
    )
    nested_request = adapter.requests[1]
    assert nested_request.prompt_name == "research"
    assert nested_request.instructions == research_prompt().render().text
    assert nested_request.messages == (UserMessage("find X"),)
    assert response.usage == Usage(30, 15)  # the nested request's usage included
    assert response.usage_by_provider == {"scripted": Usage(30, 15)}


def test_the_nested_runs_events_reach_the_outer_bus():
    bus = EventBus()
    seen: list[str] = []
    bus.subscribe(PromptExecuted, lambda event: seen.append(event.prompt_name))
    adapter = ScriptedAdapter([ask("find X"), text("X is 42"), text("done")])
    tool = PromptTool(research_prompt(), name="research", description="Research.")
    adapter.evaluate(outer_prompt(tool), bus=bus)
    assert seen == ["research", "outer"]


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_nested_run_names_the_call_it_runs_in(driver):
    bus = EventBus()
    started: list[EvaluationStarted] = []
    bus.subscribe(EvaluationStarted, started.append)
    adapter = ScriptedAdapter([ask("find X", "call_7"), text("X is 42"), text("done")])
    tool = PromptTool(research_prompt(), name="research", description="Research.")
    response, _ = run(adapter, outer_prompt(tool), driver, bus=bus)
    outer, nested = sorted(started, key=lambda event: event.prompt_name != "outer")
    assert (outer.prompt_name, outer.parent_run_id, outer.parent_call_id) == ("outer", None, None)
    assert (nested.prompt_name, nested.parent_run_id, nested.parent_call_id) == (
        "research",
        response.run_id,
        "call_7",
    )


def test_a_handler_nests_its_own_run_and_the_nesting_ends_with_the_block():
    bus = EventBus()
    started: list[EvaluationStarted] = []
    bus.subscribe(EvaluationStarted, started.append)
    inner = ScriptedAdapter([text("inside"), text("after")])

    def delegate(params: Target, *, context: ToolContext) -> ToolResult[str]:
        with context.nesting():
            first = inner.evaluate(research_prompt(), bus=context.event_bus)
        second = inner.evaluate(research_prompt(), bus=context.event_bus)
        return ToolResult.ok(f"{first.text}, {second.text}")

    tool = Tool[Target, str](name="delegate", description="Delegate.", handler=delegate)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("delegate", {"name": "x"}, call_id="call_d")), text("done")]
    )
    response = adapter.evaluate(outer_prompt(tool), bus=bus)
    assert response.tool_results[0].result.value == "inside, after"
    parents = [(event.parent_run_id, event.parent_call_id) for event in started]
    assert parents == [(None, None), (response.run_id, "call_d"), (None, None)]


def test_a_prompt_tool_with_its_own_adapter_runs_there():
    outer = ScriptedAdapter([ask("find X"), text("done")])
    inner = ScriptedAdapter([text("X is 42", usage=Usage(100, 7))])
    tool = PromptTool(research_prompt(), name="research", description="Research.", adapter=inner)
    response = outer.evaluate(outer_prompt(tool))
    assert (outer.sent, inner.sent) == (2, 1)
    assert response.tool_results[0].result.value == "X is 42"
    assert response.usage == Usage(120, 17)


def test_the_model_reads_the_nested_structured_output():
    nested = PromptTemplate[Finding](
        name="finder", sections=[MarkdownSection(title="Role", template="Find.")]
    )
    tool = PromptTool(nested, name="research", description="Find.")
    adapter = ScriptedAdapter(
        [ask("find X"), text('{"answer": "42", "confidence": 0.9}'), text("done")]
    )
    response = adapter.evaluate(outer_prompt(tool))
    assert response.tool_results[0].result.value == Finding("42", 0.9)
    message = response.messages[1]
    assert isinstance(message, ToolResultMessage)
    assert json.loads(message.content) == {"answer": "42", "confidence": 0.9}


def test_a_params_type_renders_the_nested_prompt():
    nested = PromptTemplate(
        name="about",
        sections=[MarkdownSection[Target](title="Role", template="Describe ${name}.")],
    )
    tool = PromptTool(nested, name="describe", description="Describe.", params_type=Target)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("describe", {"name": "Paris"})),
            text("A city."),
            text("done"),
        ]
    )
    adapter.evaluate(outer_prompt(tool))
    assert adapter.requests[1].messages == (UserMessage(nested.render(Target("Paris")).text),)


def test_a_nested_run_that_fails_is_a_failed_result_and_the_outer_run_goes_on():
    failure = PromptEvaluationError("overloaded", provider="scripted", status=529)
    adapter = ScriptedAdapter([ask("find X"), failure, text("I could not research it.")])
    tool = PromptTool(research_prompt(), name="research", description="Research.")
    response = adapter.evaluate(outer_prompt(tool))
    assert response.text == "I could not research it."
    assert not response.tool_results[0].result.success


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_nested_destructive_call_pauses_the_outer_run_and_one_approval_resumes_both(driver):
    dropped: list[str] = []
    adapter = ScriptedAdapter(
        [
            ask("clean up"),
            tool_calls(tool_call("drop", {"name": "old"}, call_id="call_drop")),
            text("dropped old"),
            text("all clean"),
        ]
    )
    tool = PromptTool(research_prompt(dropped), name="research", description="Research.")
    prompt = outer_prompt(tool)
    waiting, events = run(adapter, prompt, driver)
    (pending,) = waiting.pending_confirmations
    assert (pending.call_id, pending.name, pending.via) == ("call_drop", "drop", "call_outer")
    assert pending.arguments == {"name": "old"}
    assert dropped == []
    if driver in ("stream", "astream"):
        shown = [e for e in events if isinstance(e, ConfirmationRequired)]
        assert [e.call_id for e in shown] == ["call_drop"]
    response, _ = run(
        adapter, prompt, driver, session=waiting.session, confirmations={"call_drop": approve()}
    )
    assert response.text == "all clean"
    assert dropped == ["old"]  # approved once, run once
    (result,) = response.tool_results
    assert (result.call.id, result.result.value) == ("call_outer", "dropped old")
    assert adapter.sent == 4
    assert response.usage == Usage(40, 20)


def test_a_denied_nested_call_is_declined_inside_and_both_runs_go_on():
    dropped: list[str] = []
    adapter = ScriptedAdapter(
        [
            ask("clean up"),
            tool_calls(tool_call("drop", {"name": "old"}, call_id="call_drop")),
            text("could not drop old"),
            text("nothing changed"),
        ]
    )
    tool = PromptTool(research_prompt(dropped), name="research", description="Research.")
    prompt = outer_prompt(tool)
    waiting = adapter.evaluate(prompt)
    response = adapter.evaluate(
        prompt, session=waiting.session, confirmations={"call_drop": deny("keep it")}
    )
    assert dropped == []
    assert response.text == "nothing changed"
    nested_request = adapter.requests[2]
    declined = nested_request.messages[-1]
    assert isinstance(declined, ToolResultMessage)
    assert "keep it" in declined.content


def test_an_answer_naming_the_outer_call_instead_of_the_nested_one_is_refused():
    adapter = ScriptedAdapter(
        [ask("clean up"), tool_calls(tool_call("drop", {"name": "old"}, call_id="call_drop"))]
    )
    tool = PromptTool(research_prompt([]), name="research", description="Research.")
    prompt = outer_prompt(tool)
    waiting = adapter.evaluate(prompt)
    with pytest.raises(PromptEvaluationError, match="call_outer"):
        adapter.evaluate(prompt, session=waiting.session, confirmations={"call_outer": approve()})


def test_the_outer_runs_limits_count_the_nested_usage():
    adapter = ScriptedAdapter([ask("find X"), text("X is 42", usage=Usage(500, 5)), text("done")])
    tool = PromptTool(research_prompt(), name="research", description="Research.")
    with pytest.raises(UsageLimitExceeded) as stopped:
        adapter.evaluate(outer_prompt(tool), limits=UsageLimits(total_tokens=200))
    assert stopped.value.usage == Usage(510, 10)
    assert adapter.sent == 2
