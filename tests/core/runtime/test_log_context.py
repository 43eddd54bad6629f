"""Correlation fields an application sets reach the library's tool-call records, in the async
driver's tasks and worker threads too, and cannot shadow the library's own fields."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

import pytest

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult, log_context
from affordance.runtime.record.log_context import current_log_fields
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls


@dataclass(frozen=True)
class Params:
    name: str


def greet(params: Params) -> ToolResult[str]:
    return ToolResult.ok(f"hi {params.name}")


PROMPT = PromptTemplate(
    name="greet",
    sections=[
        MarkdownSection(
            title="Task",
            template="Greet.",
            tools=[Tool[Params, str](name="greet", description="Greet.", handler=greet)],
        )
    ],
)


def script() -> ScriptedAdapter:
    return ScriptedAdapter([tool_calls(tool_call("greet", {"name": "Ada"})), text("done")])


def test_fields_reach_every_tool_call_record_inside_the_block(caplog):
    with caplog.at_level(logging.INFO, logger="affordance"):
        with log_context(request_id="req-7"):
            script().evaluate(PROMPT)
        script().evaluate(PROMPT)  # outside the block: no field

    inside, outside = caplog.records
    assert inside.affordance_request_id == "req-7"  # type: ignore[attr-defined]
    assert not hasattr(outside, "affordance_request_id")


def test_fields_follow_the_run_into_tasks_and_worker_threads(caplog):
    async def run() -> None:
        with log_context(request_id="req-9", tenant="acme"):
            await script().aevaluate(PROMPT)  # a plain def tool runs in a worker thread

    with caplog.at_level(logging.INFO, logger="affordance"):
        asyncio.run(run())

    (record,) = caplog.records
    assert (record.affordance_request_id, record.affordance_tenant) == ("req-9", "acme")  # type: ignore[attr-defined]


def test_blocks_nest_and_restore():
    with log_context(request_id="outer"):
        with log_context(conversation_id="c1"):
            assert dict(current_log_fields()) == {"request_id": "outer", "conversation_id": "c1"}
        assert dict(current_log_fields()) == {"request_id": "outer"}
    assert dict(current_log_fields()) == {}


@pytest.mark.parametrize(
    ("fields", "error"),
    [({"run_id": "x"}, ValueError), ({"request_id": 3}, TypeError)],
)
def test_reserved_names_and_non_string_values_are_refused(fields, error):
    with pytest.raises(error), log_context(**fields):
        pass


def test_a_scripted_adapter_can_keep_no_requests():
    adapter = ScriptedAdapter(responder=lambda request: text("ok"), record=False)
    for _ in range(3):
        adapter.evaluate(PROMPT)
    assert (adapter.requests, adapter.sent) == ([], 3)
