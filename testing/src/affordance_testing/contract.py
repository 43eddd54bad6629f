"""The contract every provider adapter passes: one suite, run by each provider plugin's tests.

Subclass :class:`AdapterContract` as ``Test...`` in your plugin's tests and define two fixtures:

- ``wire``: a :class:`ContractWire` over your fake server (real SDK, real HTTP, loopback:
  :mod:`affordance_testing.loopback` serves JSON, SSE and NDJSON, and its ``fault_reply`` makes
  the matrix's wire faults of your answers; ``specs/PLUGINS.md``, "Write a provider");
- ``make_adapter``: a callable taking ``"sync"`` or ``"async"`` and returning a fresh adapter
  whose client of that kind points at the fake server and is the adapter's to close (a fresh one
  per call: async clients are bound to the event loop that first uses them; the contract closes
  each adapter with ``close()`` / ``aclose()`` on that loop). Give the async client a bounded
  connection pool (say 20 connections): the concurrency test runs 1,000 evaluations through it.
  Keep the retry budget small and its waits short (the SDK's ``max_retries=1``; an injected
  clock for a budget of the adapter's own): the fault matrix retries on purpose.

Every behaviour is checked through the four ways of running (``evaluate``, ``aevaluate``,
``stream``, ``astream``), and a streamed run must end with the response the plain one returns.
A stream left early must close its HTTP response there and then: the fake server must see the
connection closed while the adapter and its client are still open (:data:`STREAM_LEFT_OPEN`).
The fault matrix (:mod:`affordance_testing.faults`) runs each fault row in each mode it applies
to; no run may leave content (:data:`~affordance_testing.faults.SENTINELS`) in a log record.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import Callable
from typing import Any

import pytest

from affordance import TextDelta
from affordance.adapters import ProviderAdapter, ProviderTurn, ToolCall, Usage, UserMessage
from affordance.errors import PromptEvaluationError
from affordance.runtime import PromptResponse
from affordance.testing import comparable
from affordance_testing.contract_approvals import (
    APPROVAL_CASES,
    ApprovalCase,
    approval_property,
    check_approval_case,
    model_of,
)
from affordance_testing.contract_faults import check_fault_outcome, script_fault_row
from affordance_testing.contract_fixtures import ContractWire, MakeAdapter
from affordance_testing.contract_run_control import RunControlContract
from affordance_testing.contract_runs import (
    Entity,
    Verdict,
    contract_prompt,
    lingering_tasks,
    lookup_call,
    provider_name,
    run,
    send_one_request,
)
from affordance_testing.faults import (
    ARGUMENT_SENTINEL,
    FAULT_CASES,
    MODES,
    RESULT_SENTINEL,
    RUN_DEADLINE,
    SENTINELS,
    FaultRow,
    Mode,
)
from affordance_testing.logs import LogCapture

__all__ = ["MODES", "STREAM_LEFT_OPEN", "AdapterContract", "ContractWire", "Mode", "run"]

CONCURRENT_RUNS = 1000
"""How many ``aevaluate`` runs the concurrency test starts at once on one adapter."""

STREAM_LEFT_OPEN = (
    "leaving the stream early left its HTTP response open: the server still holds the "
    "connection while the adapter and its client are open (close the response in a finally "
    "of send_stream / asend_stream, not when the client closes)"
)
"""Why the early-exit tests fail an adapter that leaves closing its response to the client."""


def _abstract(name: str) -> Any:
    pytest.fail(f"AdapterContract needs the {name!r} fixture (see affordance_testing.contract)")


class AdapterContract(RunControlContract):
    """The provider adapter contract; see the module docstring for the fixtures it needs."""

    @pytest.fixture
    def wire(self) -> ContractWire:
        return _abstract("wire")  # type: ignore[no-any-return]

    @pytest.fixture
    def make_adapter(self) -> MakeAdapter:
        return _abstract("make_adapter")  # type: ignore[no-any-return]

    @pytest.mark.parametrize("mode", MODES)
    def test_a_text_answer(self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode) -> None:
        wire.script(ProviderTurn(text="Hello there.", usage=Usage(7, 3)))

        response = run(make_adapter, mode, contract_prompt())

        assert (response.text, response.finish_reason, response.turns) == (
            "Hello there.",
            "stop",
            1,
        )
        assert (response.usage.input_tokens, response.usage.output_tokens) == (7, 3)
        assert len(wire.requests()) == 1

    @pytest.mark.parametrize("mode", MODES)
    def test_parallel_calls_run_and_a_failed_tool_reaches_the_model_as_a_failure(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script(
            ProviderTurn(
                tool_calls=(lookup_call("call_1", "a"), lookup_call("call_2", "boom")),
                usage=Usage(10, 4),
                finish_reason="tool_calls",
            ),
            ProviderTurn(text="a is at https://e/a; b failed.", usage=Usage(20, 5)),
        )

        response = run(make_adapter, mode, contract_prompt())

        assert [(r.call.id, r.result.success) for r in response.tool_results] == [
            ("call_1", True),
            ("call_2", False),
        ]
        assert response.text == "a is at https://e/a; b failed."
        assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 9)
        _, second = wire.requests()
        assert wire.tool_results(second) == [("call_1", False), ("call_2", True)]

    @pytest.mark.parametrize("mode", MODES)
    def test_arguments_the_tool_rejects_reach_the_model_and_the_run_goes_on(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        bad = ToolCall("call_1", "lookup", json.dumps({"entity": 3}))
        wire.script(
            ProviderTurn(tool_calls=(bad,), finish_reason="tool_calls"), ProviderTurn(text="Sorry.")
        )

        response = run(make_adapter, mode, contract_prompt())

        (result,) = response.tool_results
        assert not result.result.success
        assert "entity_id" in result.result.message
        assert wire.tool_results(wire.requests()[1]) == [("call_1", True)]
        assert response.text == "Sorry."

    @pytest.mark.parametrize("mode", MODES)
    def test_structured_output_is_parsed(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script(ProviderTurn(text='{"label": "ok", "score": 3}'))

        response = run(make_adapter, mode, contract_prompt(Verdict))

        assert response.output == Verdict("ok", 3)

    @pytest.mark.parametrize(
        ("plain", "streamed"), [("evaluate", "stream"), ("aevaluate", "astream")]
    )
    def test_a_streamed_run_ends_with_the_response_a_plain_run_returns(
        self, wire: ContractWire, make_adapter: MakeAdapter, plain: Mode, streamed: Mode
    ) -> None:
        script = (
            ProviderTurn(
                tool_calls=(lookup_call("call_1", "a"), lookup_call("call_2", "boom")),
                usage=Usage(11, 4),
                finish_reason="tool_calls",
            ),
            ProviderTurn(text="Done: a found, b failed — désolé.", usage=Usage(21, 6)),
        )
        wire.script(*script)
        expected = run(make_adapter, plain, contract_prompt())
        wire.script(*script)

        response = run(make_adapter, streamed, contract_prompt())

        assert comparable(response) == comparable(expected)

    def test_leaving_a_stream_early_closes_its_connection(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        wire.script(ProviderTurn(text="A long answer, piece by piece. " * 40))
        threads = threading.active_count()

        with make_adapter("sync") as adapter:
            with adapter.stream(contract_prompt()) as events:
                for event in events:
                    if isinstance(event, TextDelta):
                        break
            assert wire.wait_idle(), STREAM_LEFT_OPEN  # the adapter and its client still open

        assert len(wire.requests()) == 1
        assert threading.active_count() <= threads

    def test_breaking_out_of_an_async_stream_closes_its_connection(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        wire.script(ProviderTurn(text="A long answer, piece by piece. " * 40))

        async def consume() -> set[asyncio.Task[Any]]:
            async with make_adapter("async") as adapter:
                async with adapter.astream(contract_prompt()) as events:
                    async for event in events:
                        if isinstance(event, TextDelta):
                            break
                # The loop runs on while the server is asked, so what the SDK closes in a task
                # of its own counts; the adapter and its client are still open.
                assert await asyncio.to_thread(wire.wait_idle), STREAM_LEFT_OPEN
            return await lingering_tasks()

        assert {task.get_coro() for task in asyncio.run(consume())} == set()
        assert len(wire.requests()) == 1
        assert wire.wait_idle()

    # -- confirmations -----------------------------------------------------------------------

    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("case", APPROVAL_CASES, ids=str)
    def test_one_approval_runs_one_call(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode, case: ApprovalCase
    ) -> None:
        wire.respond(model_of(case))

        check_approval_case(make_adapter, mode, case)

    def test_no_destructive_call_runs_without_an_approval_naming_it(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        pytest.importorskip("hypothesis")  # a dev tool: the property runs where it is installed

        approval_property(wire.respond, make_adapter)()

    def test_the_adapter_builds_from_a_model_name_alone_and_shows_its_request_offline(
        self, make_adapter: MakeAdapter, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """What ``load_adapter(name, model=...)`` and ``affordance render --provider`` rely on:
        the class builds from ``model=`` alone — no client, no credentials in the environment —
        and ``wire_request`` gives the request body without sending anything or building a
        client (a client is built on first use, so a missing key fails the first request)."""
        with make_adapter("sync") as made:
            adapter_class: Callable[..., ProviderAdapter[Any]] = type(made)  # a plugin's class
        for variable in list(os.environ):
            if variable.endswith(("_API_KEY", "_AUTH_TOKEN", "_BASE_URL")):
                monkeypatch.delenv(variable)
        with adapter_class(model="contract-model") as adapter:
            rendered = contract_prompt().render()
            body = adapter.wire_request(adapter.preview_request(rendered, "contract"))
        assert '"lookup"' in json.dumps(body), "the body declares the prompt's tool"

    @pytest.mark.parametrize("mode", MODES)
    def test_a_request_that_asks_for_no_retries_is_sent_once(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        """``ModelRequest.retries=False`` (what a durable engine sends, retrying on its own):
        one overloaded answer fails the request at once, transient, after one request; the
        same request with retries (the default) is retried and answered."""
        wire.script_fault("overloaded")
        with pytest.raises(PromptEvaluationError) as raised:
            send_one_request(make_adapter, mode, contract_prompt(), retries=False)
        assert raised.value.transient
        assert len(wire.requests()) == 1
        wire.script_fault("overloaded")
        wire.script(ProviderTurn(text="retried"))
        text = send_one_request(make_adapter, mode, contract_prompt(), retries=True)
        assert text == "retried"
        assert len(wire.requests()) == 3
        assert wire.wait_idle()

    # -- the fault matrix --------------------------------------------------------------------

    @pytest.mark.parametrize(
        ("row", "mode"), FAULT_CASES, ids=[f"{row.name}-{mode}" for row, mode in FAULT_CASES]
    )
    def test_fault(
        self, wire: ContractWire, make_adapter: MakeAdapter, row: FaultRow, mode: Mode
    ) -> None:
        expected = wire.profile.expected(row, mode)
        if expected is None:
            deviation = wire.profile.deviation(row, mode)
            reason = deviation.reason if deviation is not None else "?"
            pytest.skip(f"{row.name!r} does not apply to {wire.profile.provider}: {reason}")
        script_fault_row(wire, row)
        options = {"deadline": RUN_DEADLINE, **row.options}

        with LogCapture(wire.profile.loggers) as logs:
            try:
                response: PromptResponse[Any] | None = run(
                    make_adapter, mode, contract_prompt(), **options
                )
                error: PromptEvaluationError | None = None
            except PromptEvaluationError as raised:
                response, error = None, raised

        check_fault_outcome(expected, row, wire, response, error, provider_name(make_adapter))
        assert logs.leaks(SENTINELS) == []
        assert wire.wait_idle()

    def test_concurrent_runs_share_one_pool_without_cross_talk_or_leaks(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        wire.respond(_answer_for_its_run)
        threads = threading.active_count()
        prompt = contract_prompt()

        async def everything() -> tuple[list[PromptResponse[Any]], set[asyncio.Task[Any]]]:
            async with make_adapter("async") as adapter:
                responses = await asyncio.gather(
                    *(
                        adapter.aevaluate(
                            prompt,
                            messages=(UserMessage(f"run-{index:04d}"),),
                            deadline=RUN_DEADLINE * 6,
                        )
                        for index in range(CONCURRENT_RUNS)
                    )
                )
            return responses, await lingering_tasks()

        with LogCapture(wire.profile.loggers) as logs:
            responses, tasks_left = asyncio.run(everything())

        assert {task.get_coro() for task in tasks_left} == set()
        for index, response in enumerate(responses):
            assert response.text == f"run {index} done"
            results = [(r.call.id, r.result.value) for r in response.tool_results]
            calls = index % 2  # odd runs call the tool once, even ones answer at once
            assert results == [(f"call_{index}", _entity(f"{ARGUMENT_SENTINEL}-{index}"))] * calls
        bodies = [json.dumps(body) for body in wire.requests()]
        assert len(bodies) == CONCURRENT_RUNS + CONCURRENT_RUNS // 2
        assert all(len(set(_RUN.findall(body))) == 1 for body in bodies)  # one run per request
        assert logs.leaks(SENTINELS) == []
        assert wire.wait_idle()
        assert threading.active_count() <= threads


_RUN = re.compile(r"run-(\d{4})")


def _entity(entity_id: str) -> Entity:
    return Entity(entity_id, f"https://e/{entity_id}")


def _answer_for_its_run(body: str) -> ProviderTurn:
    """The model of the concurrency test: in odd runs a call naming the run, then an answer
    naming it; in even ones the answer at once; both read from the request itself (another
    run's words in it would show)."""
    found = _RUN.search(body)
    if found is None:
        raise LookupError("a request without its run's marker")
    index = int(found[1])
    if index % 2 == 0 or RESULT_SENTINEL in body:
        return ProviderTurn(text=f"run {index} done")
    call = lookup_call(f"call_{index}", f"{ARGUMENT_SENTINEL}-{index}")
    return ProviderTurn(tool_calls=(call,), finish_reason="tool_calls")
