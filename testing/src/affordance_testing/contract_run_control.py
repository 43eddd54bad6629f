"""The run controls of the adapter contract: an answer that does not validate is asked again,
retries that run out name every attempt, a usage limit stops a run before its next request and
resumes it, and a destructive call inside a prompt run as a tool pauses the outer run until one
approval resumes both — on the provider's own wire, the four ways of running.

:class:`RunControlContract` is a base of :class:`~affordance_testing.contract.AdapterContract`;
it uses the same ``wire`` and ``make_adapter`` fixtures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from affordance import (
    MarkdownSection,
    OutputValidationError,
    PromptTemplate,
    PromptTool,
    Session,
    Tool,
    ToolResult,
    UsageLimitExceeded,
    UsageLimits,
    approve,
)
from affordance.adapters import ProviderTurn, ToolCall, Usage
from affordance_testing.contract_approvals import _Runner
from affordance_testing.contract_fixtures import ContractWire, MakeAdapter
from affordance_testing.contract_runs import Verdict, contract_prompt, lookup_call, run
from affordance_testing.faults import MODES, Mode

__all__ = ["RunControlContract"]

ASKED_AGAIN = "Your answer was not accepted"
"""The start of the user message that sends a rejected answer back (core's wording)."""


class RunControlContract:
    """Output retries and usage limits over the provider's wire."""

    @pytest.mark.parametrize("mode", MODES)
    def test_an_answer_that_does_not_parse_is_asked_again(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script(
            ProviderTurn(text="It looks fine to me."),
            ProviderTurn(text='{"label": "ok", "score": 3}'),
        )

        response = run(make_adapter, mode, contract_prompt(Verdict))

        assert response.output == Verdict("ok", 3)
        first, second = wire.requests()
        assert ASKED_AGAIN not in json.dumps(first)
        assert ASKED_AGAIN in json.dumps(second)
        assert "It looks fine to me." in json.dumps(second)  # the rejected answer is kept

    @pytest.mark.parametrize("mode", MODES)
    def test_when_output_retries_run_out_the_error_holds_every_attempt(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script(ProviderTurn(text="no"), ProviderTurn(text='{"label": "ok"}'))

        with pytest.raises(OutputValidationError) as raised:
            run(make_adapter, mode, contract_prompt(Verdict))

        assert [a.raw_text for a in raised.value.attempts] == ["no", '{"label": "ok"}']
        assert len(wire.requests()) == 2

    @pytest.mark.parametrize("mode", MODES)
    def test_a_usage_limit_stops_before_the_next_request_and_the_run_resumes(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script(
            ProviderTurn(
                tool_calls=(lookup_call("call_1", "a"),),
                usage=Usage(11, 4),
                finish_reason="tool_calls",
            )
        )
        prompt = contract_prompt()

        with pytest.raises(UsageLimitExceeded) as raised:
            run(make_adapter, mode, prompt, limits=UsageLimits(requests=1))

        stop = raised.value
        assert (stop.limit, stop.usage.input_tokens, len(wire.requests())) == ("requests", 11, 1)
        wire.script(ProviderTurn(text="a found.", usage=Usage(20, 3)))
        response = run(
            make_adapter,
            mode,
            prompt,
            session=stop.session,
            resume=stop.run_id,
            limits=UsageLimits(requests=2),
        )
        assert (response.text, response.run_id) == ("a found.", stop.run_id)
        assert response.usage.input_tokens == 31
        requests = wire.requests()
        assert len(requests) == 2
        assert wire.tool_results(requests[1]) == [("call_1", False)]

    @pytest.mark.parametrize("mode", MODES)
    def test_a_destructive_call_in_a_prompt_tool_waits_and_one_approval_resumes_both(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        deleted: list[str] = []
        prompt = _delegating_prompt(deleted)
        wire.script(
            ProviderTurn(
                tool_calls=(ToolCall("call_outer", "clerk", json.dumps({"request": "clean"})),),
                finish_reason="tool_calls",
            ),
            ProviderTurn(
                tool_calls=(ToolCall("call_inner", "delete", json.dumps({"entity_id": "e1"})),),
                finish_reason="tool_calls",
            ),
        )
        session = Session()
        with _Runner(make_adapter, mode) as runner:
            waiting = runner.evaluate(prompt, session=session)
            (pending,) = waiting.pending_confirmations
            assert (pending.name, pending.arguments, deleted) == ("delete", {"entity_id": "e1"}, [])
            assert pending.via is not None  # the outer call holding it
            wire.script(ProviderTurn(text="Deleted e1."), ProviderTurn(text="All clean."))
            done = runner.evaluate(
                prompt, session=session, confirmations={pending.call_id: approve()}
            )
        assert (done.text, deleted) == ("All clean.", ["e1"])
        (outer,) = done.tool_results
        assert (outer.call.id, outer.result.value) == (pending.via, "Deleted e1.")
        assert len(wire.requests()) == 4


def _delegating_prompt(deleted: list[str]) -> PromptTemplate[None]:
    """A prompt whose one tool is a prompt (``clerk``) with a destructive tool of its own."""

    def delete(params: _EntityRef) -> ToolResult[str]:
        deleted.append(params.entity_id)
        return ToolResult.ok(f"deleted {params.entity_id}")

    tool = Tool[_EntityRef, str](
        name="delete", description="Delete an entity.", handler=delete, destructive=True
    )
    clerk: PromptTemplate[None] = PromptTemplate(
        name="clerk", sections=[MarkdownSection(title="Role", template="Tidy up.", tools=[tool])]
    )
    outer = PromptTool(clerk, name="clerk", description="Hand a job to the clerk.")
    return PromptTemplate(
        name="delegating",
        sections=[MarkdownSection(title="Task", template="Delegate.", tools=[outer])],
    )


@dataclass(frozen=True)
class _EntityRef:
    entity_id: str
