"""The evaluation loop: turns, terminal tools, structured output, bounds, both drivers."""

from __future__ import annotations

import asyncio
import gc
import weakref
from dataclasses import dataclass

import pytest
from entity_tools import Entity, LookupParams, make_prompt

from affordance import PromptEvaluationError, Tool, ToolResult
from affordance.adapters import AssistantMessage, ToolResultMessage, UserMessage
from affordance.runtime import Evaluation, EventBus, Session
from affordance.runtime.loop import drive
from affordance.runtime.model.turn import ProviderTurn, Usage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Verdict:
    label: str
    score: int


def test_a_final_answer_without_tools_finishes_in_one_turn():
    adapter = ScriptedAdapter([text("hello", usage=Usage(3, 2))])
    response = adapter.evaluate(make_prompt())
    assert (response.text, response.turns, response.usage) == ("hello", 1, Usage(3, 2))
    adapter.assert_complete()


def test_the_rendered_prompt_is_the_first_user_message_without_caller_messages():
    adapter = ScriptedAdapter([text("hi")])
    adapter.evaluate(make_prompt())
    request = adapter.requests[0]
    assert request.instructions is None
    assert request.messages == (UserMessage("## 1 Task\nManage entities."),)
    assert [t.name for t in request.tools] == ["lookup", "delete"]


def test_with_caller_messages_the_rendered_prompt_is_the_instructions():
    adapter = ScriptedAdapter([text("hi")])
    adapter.evaluate(make_prompt(), messages=[UserMessage("What is up?")])
    request = adapter.requests[0]
    assert request.instructions == "## 1 Task\nManage entities."
    assert request.messages == (UserMessage("What is up?"),)


def test_tool_results_are_appended_in_call_order_and_usage_is_summed():
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("lookup", {"entity_id": "a"}, call_id="c1"),
                tool_call("lookup", {"entity_id": "boom"}, call_id="c2"),
                usage=Usage(10, 1),
            ),
            text("done", usage=Usage(20, 2)),
        ]
    )
    response = adapter.evaluate(make_prompt())
    _, assistant, first, second = adapter.requests[1].messages
    assert isinstance(assistant, AssistantMessage)
    assert [c.id for c in assistant.tool_calls] == ["c1", "c2"]
    assert isinstance(first, ToolResultMessage)
    assert isinstance(second, ToolResultMessage)
    assert (first.call_id, first.is_error, second.call_id, second.is_error) == (
        "c1",
        False,
        "c2",
        True,
    )
    assert response.usage == Usage(30, 3)
    assert response.turns == 2
    assert [r.call.id for r in response.tool_results] == ["c1", "c2"]


def test_max_turns_bounds_a_model_that_never_stops_calling_tools():
    looping = tool_calls(tool_call("lookup", {"entity_id": "a"}))
    adapter = ScriptedAdapter(responder=lambda request: looping)
    with pytest.raises(PromptEvaluationError, match="max_turns") as info:
        adapter.evaluate(make_prompt(), max_turns=3)
    assert info.value.phase == "loop"
    assert len(adapter.requests) == 3


def test_provider_errors_propagate_unchanged():
    boom = PromptEvaluationError("rate limited", provider="scripted", status=429)
    adapter = ScriptedAdapter([boom])
    with pytest.raises(PromptEvaluationError, match="rate limited"):
        adapter.evaluate(make_prompt())


def test_structured_output_is_parsed_into_the_output_type():
    adapter = ScriptedAdapter([text('```json\n{"label": "spam", "score": 3}\n```')])
    response = adapter.evaluate(make_prompt(output_type=Verdict))
    assert response.output == Verdict("spam", 3)
    schema = adapter.requests[0].output_schema
    assert schema is not None
    assert schema["required"] == ["label", "score"]
    assert adapter.requests[0].output_name == "Verdict"


def test_unparseable_structured_output_is_an_error_carrying_the_raw_text():
    # the first answer is sent back once (output_retries defaults to 1); the second ends it
    adapter = ScriptedAdapter([text("I think it is spam"), text("It is spam")])
    with pytest.raises(PromptEvaluationError, match="not JSON") as info:
        adapter.evaluate(make_prompt(output_type=Verdict))
    assert info.value.raw_text == "It is spam"
    assert info.value.phase == "output"


def test_structured_output_of_the_wrong_shape_names_the_field():
    adapter = ScriptedAdapter([text('{"label": "spam", "score": "high"}')] * 2)
    with pytest.raises(PromptEvaluationError, match="score") as info:
        adapter.evaluate(make_prompt(output_type=Verdict))
    assert info.value.raw_text == '{"label": "spam", "score": "high"}'


def test_a_refusal_with_structured_output_is_an_error():
    adapter = ScriptedAdapter([ProviderTurn(refusal="I can't help", finish_reason="refusal")])
    with pytest.raises(PromptEvaluationError, match="refused"):
        adapter.evaluate(make_prompt(output_type=Verdict))


def test_a_refusal_without_structured_output_is_the_answer():
    adapter = ScriptedAdapter([ProviderTurn(refusal="I can't help", finish_reason="refusal")])
    response = adapter.evaluate(make_prompt())
    assert (response.text, response.finish_reason) == ("I can't help", "refusal")


def finish_tool() -> Tool[LookupParams, Entity]:
    return Tool[LookupParams, Entity](
        name="finish",
        description="Hand the entity back.",
        handler=lambda p: ToolResult.ok(Entity(p.entity_id, "final")),
        terminal=True,
    )


def test_a_terminal_tool_ends_the_turn_and_later_calls_are_skipped():
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("lookup", {"entity_id": "before"}),
                tool_call("finish", {"entity_id": "x"}),
                tool_call("lookup", {"entity_id": "after"}),
            )
        ]
    )
    response = adapter.evaluate(make_prompt(finish_tool()))
    before, finish, after = (r.result for r in response.tool_results)
    assert before.success
    assert finish.value == Entity("x", "final")
    assert after.message == "Tool 'lookup' was not run: 'finish' ended the turn before it."
    assert response.finish_reason == "terminal_tool"
    assert len(adapter.requests) == 1
    adapter.assert_complete()


def test_a_terminal_tool_with_invalid_arguments_does_not_end_the_run():
    adapter = ScriptedAdapter([tool_calls(tool_call("finish", {"wrong": 1})), text("recovered")])
    response = adapter.evaluate(make_prompt(finish_tool()))
    assert response.text == "recovered"
    assert not response.tool_results[0].result.success


def test_parallel_calls_run_concurrently_in_the_async_driver():
    arrived = 0
    both_arrived = asyncio.Event()

    async def rendezvous(params: LookupParams) -> ToolResult[str]:
        nonlocal arrived
        arrived += 1
        if arrived == 2:
            both_arrived.set()
        await asyncio.wait_for(both_arrived.wait(), timeout=2)
        return ToolResult.ok(params.entity_id)

    tool = Tool[LookupParams, str](name="meet", description="Meet.", handler=rendezvous)
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("meet", {"entity_id": "a"}), tool_call("meet", {"entity_id": "b"})
            ),
            text("met"),
        ]
    )
    response = asyncio.run(adapter.aevaluate(make_prompt(tool)))
    assert [r.result.value for r in response.tool_results] == ["a", "b"]


def test_one_failing_parallel_call_does_not_affect_its_siblings():
    async def fails(params: LookupParams) -> ToolResult[str]:
        raise ValueError("bad")

    async def works(params: LookupParams) -> ToolResult[str]:
        return ToolResult.ok("fine")

    tools = (
        Tool[LookupParams, str](name="fails", description="Fails.", handler=fails),
        Tool[LookupParams, str](name="works", description="Works.", handler=works),
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("fails", {"entity_id": "a"}), tool_call("works", {"entity_id": "b"})
            ),
            text("ok"),
        ]
    )
    response = asyncio.run(adapter.aevaluate(make_prompt(*tools)))
    fails_result, works_result = (r.result for r in response.tool_results)
    assert fails_result.message == "Tool 'fails' failed: ValueError: bad"
    assert works_result.value == "fine"


def test_max_turns_must_be_positive():
    with pytest.raises(ValueError, match="max_turns"):
        ScriptedAdapter([text("x")]).evaluate(make_prompt(), max_turns=0)


def test_scripted_adapter_reports_a_script_that_ran_out_or_was_not_used_up():
    with pytest.raises(AssertionError, match="no step left"):
        ScriptedAdapter([]).evaluate(make_prompt())
    adapter = ScriptedAdapter([text("a"), text("b")])
    adapter.evaluate(make_prompt())
    with pytest.raises(AssertionError, match="1 unused"):
        adapter.assert_complete()


def test_a_turn_the_provider_paused_is_continued_and_its_text_kept():
    adapter = ScriptedAdapter(
        [text("Searching... ", finish_reason="paused"), text("Paris is sunny.")]
    )
    response = adapter.evaluate(make_prompt())
    assert (response.text, response.turns, response.finish_reason) == (
        "Searching... Paris is sunny.",
        2,
        "stop",
    )
    paused = adapter.requests[1].messages[-1]
    assert isinstance(paused, AssistantMessage)
    assert paused.text == "Searching... "


def test_a_finished_evaluation_is_freed_without_the_garbage_collector():
    """Nothing an evaluation builds keeps a reference back to it (its turn's calls are handed
    the evaluation's methods per call, never keep them), so once it has run, dropping it frees
    it at once rather than at the collector's next pass."""
    adapter = ScriptedAdapter([tool_calls(tool_call("lookup", {"entity_id": "a"})), text("ok")])
    evaluation: Evaluation[object] = Evaluation(
        prompt=make_prompt(),
        params=(),
        adapter=adapter,
        session=Session(),
        bus=EventBus(),
        executor=adapter.executor,
    )
    gc.disable()
    try:
        response = drive(evaluation, evaluation.start(), adapter.send)
        freed = weakref.ref(evaluation)
        del evaluation
        assert freed() is None
    finally:
        gc.enable()
    assert response.text == "ok"
    assert [result.name for result in response.tool_results] == ["lookup"]
