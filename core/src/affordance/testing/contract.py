"""The contract every provider adapter passes: one suite, run by each provider plugin's tests.

Subclass :class:`AdapterContract` as ``Test...`` in your plugin's tests and define two fixtures:

- ``wire``: a :class:`ContractWire` over your fake server (real SDK, real HTTP, loopback);
- ``make_adapter``: a callable taking ``"sync"`` or ``"async"`` and returning a fresh adapter
  whose client of that kind points at the fake server and is the adapter's to close (a fresh one
  per call: async clients are bound to the event loop that first uses them; the contract closes
  each adapter with ``close()`` / ``aclose()`` on that loop).

Every behaviour is checked through the four ways of running (``evaluate``, ``aevaluate``,
``stream``, ``astream``), and a streamed run must end with the response the plain one returns.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import pytest

from affordance.adapters.base import ProviderAdapter
from affordance.errors import PromptEvaluationError
from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.template import PromptTemplate
from affordance.runtime.messages import ToolCall
from affordance.runtime.response import PromptResponse
from affordance.runtime.stream_events import RunFinished, TextDelta
from affordance.runtime.turn import ProviderTurn, Usage
from affordance.testing.compare import comparable
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

__all__ = ["MODES", "AdapterContract", "ContractWire", "Mode", "run"]

Mode = Literal["evaluate", "aevaluate", "stream", "astream"]
MODES: tuple[Mode, ...] = ("evaluate", "aevaluate", "stream", "astream")
Fault = Literal["transient", "malformed", "cut"]
MakeAdapter = Callable[[Literal["sync", "async"]], ProviderAdapter]


class ContractWire(Protocol):
    """What a provider's tests give the contract: its fake server, spoken in its wire format."""

    def script(self, *turns: ProviderTurn) -> None:
        """Answer the next requests with these turns, in order, each plain or streamed as the
        request asks (streamed in several events, text in several pieces)."""

    def script_fault(self, fault: Fault) -> None:
        """Answer the next request with a fault: ``"transient"`` (a 429 or overloaded reply the
        adapter's retry budget absorbs), ``"malformed"`` (a 2xx body that is not JSON), or
        ``"cut"`` (a stream cut off in the middle of an event)."""

    def requests(self) -> Sequence[Mapping[str, Any]]:
        """The JSON bodies of the requests received so far."""

    def tool_results(self, body: Mapping[str, Any]) -> list[tuple[str, bool]]:
        """The tool results in the last message of a request body: ``(call id, failed)``, as
        the model reads them."""

    def wait_idle(self) -> bool:
        """Wait (briefly) until the server has no open connection; whether it got there."""


@dataclass(frozen=True)
class LookupParams:
    entity_id: str


@dataclass(frozen=True)
class Entity:
    entity_id: str
    url: str


@dataclass(frozen=True)
class Verdict:
    label: str
    score: int


def _lookup(params: LookupParams) -> ToolResult[Entity]:
    if params.entity_id == "boom":
        raise RuntimeError("database unavailable")
    return ToolResult.ok(Entity(params.entity_id, f"https://e/{params.entity_id}"))


def contract_prompt(output_type: Any = None) -> PromptTemplate[Any]:
    """The prompt every contract test evaluates: one section, one tool that fails on ``boom``."""
    lookup = Tool[LookupParams, Entity](
        name="lookup", description="Look up an entity by id.", handler=_lookup
    )
    return PromptTemplate(
        name="contract",
        sections=[MarkdownSection(title="Task", template="Look things up.", tools=[lookup])],
        output_type=output_type,
    )


def _call(call_id: str, entity_id: str) -> ToolCall:
    return ToolCall(call_id, "lookup", json.dumps({"entity_id": entity_id}))


def run(
    make_adapter: MakeAdapter, mode: Mode, prompt: PromptTemplate[Any], **options: Any
) -> PromptResponse[Any]:
    """Evaluate ``prompt`` one of the four ways; the response it ended with."""
    if mode == "evaluate":
        with make_adapter("sync") as adapter:
            return adapter.evaluate(prompt, **options)
    if mode == "stream":
        with make_adapter("sync") as adapter, adapter.stream(prompt, **options) as events:
            last = list(events)[-1]
        assert isinstance(last, RunFinished)
        return last.response

    async def asynchronously() -> PromptResponse[Any]:
        async with make_adapter("async") as adapter:
            if mode == "aevaluate":
                return await adapter.aevaluate(prompt, **options)
            async with adapter.astream(prompt, **options) as events:
                seen = [event async for event in events]
        assert isinstance(seen[-1], RunFinished)
        return seen[-1].response

    return asyncio.run(asynchronously())


async def _settled(rounds: int = 100) -> set[asyncio.Task[Any]]:
    """The tasks still alive once the loop has had ``rounds`` turns to finish closing what an
    SDK left to the garbage collector (its async generators close in tasks of their own)."""
    others: set[asyncio.Task[Any]] = set()
    for _ in range(rounds):
        others = asyncio.all_tasks() - {asyncio.current_task()}
        if not others:
            break
        await asyncio.sleep(0)
    return others


def _provider(make_adapter: MakeAdapter) -> str:
    with make_adapter("sync") as adapter:
        return adapter.name


def _abstract(name: str) -> Any:
    pytest.fail(f"AdapterContract needs the {name!r} fixture (see affordance.testing.contract)")


class AdapterContract:
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
                tool_calls=(_call("call_1", "a"), _call("call_2", "boom")),
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
                tool_calls=(_call("call_1", "a"), _call("call_2", "boom")),
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

    @pytest.mark.parametrize("mode", MODES)
    def test_a_transient_failure_is_retried_within_the_budget(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script_fault("transient")
        wire.script(ProviderTurn(text="Recovered."))

        response = run(make_adapter, mode, contract_prompt())

        assert response.text == "Recovered."
        assert len(wire.requests()) == 2

    @pytest.mark.parametrize("mode", MODES)
    def test_a_malformed_body_is_a_prompt_evaluation_error(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script_fault("malformed")

        with pytest.raises(PromptEvaluationError) as info:
            run(make_adapter, mode, contract_prompt())

        assert info.value.provider == _provider(make_adapter)
        assert info.value.phase == "response"

    @pytest.mark.parametrize("mode", ["stream", "astream"])
    def test_a_stream_cut_mid_event_is_an_error_not_a_short_answer(
        self, wire: ContractWire, make_adapter: MakeAdapter, mode: Mode
    ) -> None:
        wire.script_fault("cut")

        with pytest.raises(PromptEvaluationError) as info:
            run(make_adapter, mode, contract_prompt())

        assert info.value.provider == _provider(make_adapter)

    def test_leaving_a_stream_early_closes_its_connection(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        wire.script(ProviderTurn(text="A long answer, piece by piece. " * 40))
        threads = threading.active_count()

        with make_adapter("sync") as adapter, adapter.stream(contract_prompt()) as events:
            for event in events:
                if isinstance(event, TextDelta):
                    break

        assert wire.wait_idle()
        assert threading.active_count() <= threads

    def test_breaking_out_of_an_async_stream_closes_its_connection(
        self, wire: ContractWire, make_adapter: MakeAdapter
    ) -> None:
        wire.script(ProviderTurn(text="A long answer, piece by piece. " * 40))

        async def consume() -> set[asyncio.Task[Any]]:
            async with (
                make_adapter("async") as adapter,
                adapter.astream(contract_prompt()) as events,
            ):
                async for event in events:
                    if isinstance(event, TextDelta):
                        break
            return await _settled()

        assert {task.get_coro() for task in asyncio.run(consume())} == set()
        assert wire.wait_idle()
