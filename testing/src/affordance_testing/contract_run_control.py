"""The run controls of the adapter contract: an answer that does not validate is asked again,
retries that run out name every attempt, and a usage limit stops a run before its next request
and resumes it — on the provider's own wire, the four ways of running.

:class:`RunControlContract` is a base of :class:`~affordance_testing.contract.AdapterContract`;
it uses the same ``wire`` and ``make_adapter`` fixtures.
"""

from __future__ import annotations

import json

import pytest

from affordance import OutputValidationError, UsageLimitExceeded, UsageLimits
from affordance.adapters import ProviderTurn, Usage
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
