"""Properties of ``ToolExecutor``: whatever the arguments, one result per call, never a raise.

Hypothesis sends arbitrary argument strings (random text, truncated and valid JSON), arbitrary
JSON objects given as parsed mappings (as Anthropic and Google send them) and deeply nested
ones, to tools with constraints, optional fields, no parameters, no handler, a destructive
flag, and handlers that raise or echo. Derandomized and bounded: the same examples on every
machine, a couple of seconds in all.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's core envs run without it

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from affordance import MarkdownSection, PromptTemplate, Tool, ToolContext, ToolResult
from affordance.adapters import ToolCall
from affordance.runtime import EventBus, Session, ToolExecutor
from affordance.serde import MAX_DEPTH
from affordance.testing import FakeClock, ScriptedAdapter, text, tool_calls

PROPERTIES = settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    database=None,
    # content_free_logs only collects records and checks them all once the test ends: sharing
    # it across the generated examples is the point.
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
MARKER = "zq-CONTENT-5e2a"  # the content_free_logs fixture fails a test whose logs carry it


@dataclass(frozen=True)
class Search:
    query: str = field(metadata={"min_length": 1, "max_length": 40})
    limit: int = field(default=5, metadata={"ge": 1, "le": 50})
    tags: list[str] = field(default_factory=list)
    near: tuple[float, float] | None = None


@dataclass(frozen=True)
class Payload:
    data: Any = None


def search(params: Search) -> ToolResult[Search]:
    if params.query == "boom":
        raise RuntimeError(MARKER)
    return ToolResult.ok(params, message=MARKER)


def echo(params: Payload) -> ToolResult[Any]:
    return ToolResult.ok(params.data)


async def echo_async(params: Payload, *, context: ToolContext) -> ToolResult[Any]:
    await asyncio.sleep(0)
    return ToolResult.ok({"call": context.call_id, "data": params.data})


TOOLS: list[Tool[Any, Any]] = [
    Tool[Search, Search](name="search", description="Search.", handler=search),
    Tool[Payload, Any](name="echo", description="Echo.", handler=echo),
    Tool[Payload, Any](name="echo_async", description="Echo later.", handler=echo_async),
    Tool[None, str](name="now", description="Now.", handler=lambda p: ToolResult.ok("now")),
    Tool[Payload, None](name="declared", description="No handler."),
    Tool[Payload, None](
        name="erase", description="Erase.", handler=lambda p: ToolResult.ok(None), destructive=True
    ),
]
BY_NAME = {tool.name: tool for tool in TOOLS}
NAMES = [*BY_NAME, "unknown"]
RUNNABLE = ["search", "echo", "echo_async", "now", "declared", "unknown"]  # nothing to confirm

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(["query", "limit", "tags", "near", "data"]) | st.text(max_size=6)
OBJECTS = st.dictionaries(KEYS, JSON, max_size=5)


def deep_text(levels: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return '{"data":' + opener * levels + "1" + closer * levels + "}"


LEVELS = st.integers(0, 3 * MAX_DEPTH) | st.sampled_from([MAX_DEPTH, MAX_DEPTH + 1, 1_000, 50_000])
ARGUMENT_STRINGS = (
    st.text(max_size=40)
    | OBJECTS.map(json.dumps)
    | OBJECTS.map(json.dumps).flatmap(lambda s: st.integers(0, len(s)).map(lambda n: s[:n]))
    | JSON.map(json.dumps)
    | st.builds(deep_text, LEVELS, st.sampled_from(["[", '{"a":']))
)
ARGUMENTS = ARGUMENT_STRINGS | OBJECTS


def context(call_id: str) -> ToolContext:
    prompt: PromptTemplate[None] = PromptTemplate(name="p", sections=[])
    return ToolContext(
        prompt=prompt,
        rendered_prompt=prompt.render(),
        adapter=None,
        session=Session(),
        event_bus=EventBus(),
        run_id="run",
        turn=1,
        call_id=call_id,
    )


@PROPERTIES
@given(name=st.sampled_from(NAMES), arguments=ARGUMENTS)
def test_prepare_then_run_gives_one_result_and_never_raises(name, arguments, content_free_logs):
    executor = ToolExecutor(clock=FakeClock())
    call = ToolCall("call-1", name, arguments)
    prepared = executor.prepare(call, BY_NAME)
    assert prepared.call is call
    if prepared.needs_confirmation:  # validated, waiting for the caller's answer
        assert prepared.result is None
        assert BY_NAME[name].destructive
        prepared = executor.prepare(call, BY_NAME, confirmed=True)
    outcome = executor.run(prepared, context(call.id))
    assert outcome.prepared is prepared
    assert isinstance(outcome.result, ToolResult)
    assert isinstance(outcome.result.render(), str)  # what the loop sends can be rendered
    assert isinstance(outcome.result.model_text(), str)
    executor.finish(outcome, run_id="run", turn=1)  # and logged


@PROPERTIES
@given(
    calls=st.lists(st.tuples(st.sampled_from(RUNNABLE), ARGUMENTS), min_size=1, max_size=4),
    asynchronous=st.booleans(),
)
def test_a_turn_gets_exactly_one_result_per_call_in_order(calls, asynchronous, content_free_logs):
    prompt = PromptTemplate(
        name="props",
        sections=[MarkdownSection(title="T", template=MARKER, tools=[*TOOLS])],
    )
    turn = tool_calls(*(ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(calls)))
    adapter = ScriptedAdapter([turn, text("done")], executor=ToolExecutor(clock=FakeClock()))
    response = asyncio.run(adapter.aevaluate(prompt)) if asynchronous else adapter.evaluate(prompt)
    assert response.text == "done"
    assert [r.call.id for r in response.tool_results] == [f"c{i}" for i in range(len(calls))]
    sent = [m.call_id for m in adapter.requests[-1].messages if hasattr(m, "call_id")]
    assert sent == [f"c{i}" for i in range(len(calls))]
