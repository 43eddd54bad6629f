"""What each contract test evaluates, and how: the contract's prompt with its one tool
(``lookup``, which fails on ``boom``), the model's calls to it, :func:`run` (one evaluation, one
of the four ways) and the tasks a run may leave behind (:func:`lingering_tasks`).

The prompt and the tool's result carry the sentinels no log record may hold
(:mod:`affordance_testing.faults`). :func:`run` is re-exported by
:mod:`affordance_testing.contract`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from affordance import RunFinished
from affordance.adapters import TextPiece, ToolCall, TurnEnd
from affordance.prompt import MarkdownSection, PromptTemplate
from affordance.runtime import PromptResponse
from affordance.tools import Tool, ToolResult
from affordance_testing.contract_fixtures import MakeAdapter
from affordance_testing.faults import PROMPT_SENTINEL, RESULT_SENTINEL, Mode

__all__ = [
    "Entity",
    "LookupParams",
    "Verdict",
    "contract_prompt",
    "lingering_tasks",
    "lookup_call",
    "provider_name",
    "run",
    "send_one_request",
]


@dataclass(frozen=True)
class LookupParams:
    entity_id: str
    verbose: bool = False  # optional: strict schemas make it nullable, so normalization runs


@dataclass(frozen=True)
class Entity:
    entity_id: str
    url: str
    note: str = RESULT_SENTINEL


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
        sections=[
            MarkdownSection(
                title="Task", template=f"Look things up. {PROMPT_SENTINEL}", tools=[lookup]
            )
        ],
        output_type=output_type,
    )


def lookup_call(call_id: str, entity_id: str) -> ToolCall:
    """The model's call of ``lookup`` for ``entity_id``."""
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


async def lingering_tasks(rounds: int = 100) -> set[asyncio.Task[Any]]:
    """The tasks still alive once the loop has had ``rounds`` turns to finish closing what an
    SDK left to the garbage collector (its async generators close in tasks of their own)."""
    others: set[asyncio.Task[Any]] = set()
    for _ in range(rounds):
        others = asyncio.all_tasks() - {asyncio.current_task()}
        if not others:
            break
        await asyncio.sleep(0)
    return others


def provider_name(make_adapter: MakeAdapter) -> str:
    """The name the adapters ``make_adapter`` makes give in their errors."""
    with make_adapter("sync") as adapter:
        return adapter.name


def send_one_request(
    make_adapter: MakeAdapter, mode: Mode, prompt: PromptTemplate[Any], *, retries: bool
) -> str:
    """Send the first request of ``prompt`` straight through the adapter's own sends — ``send``,
    ``send_stream``, ``asend`` or ``asend_stream`` for the four modes — with ``retries`` as the
    request says; the text of the answer."""

    async def asynchronously() -> str:
        async with make_adapter("async") as adapter:
            request = _first_request(adapter, prompt, retries)
            if mode == "aevaluate":
                return (await adapter.asend(request)).text or ""
            return _text([delta async for delta in adapter.asend_stream(request)])

    if mode in ("aevaluate", "astream"):
        return asyncio.run(asynchronously())
    with make_adapter("sync") as adapter:
        request = _first_request(adapter, prompt, retries)
        if mode == "evaluate":
            return adapter.send(request).text or ""
        return _text(list(adapter.send_stream(request)))


def _first_request(adapter: Any, prompt: PromptTemplate[Any], retries: bool) -> Any:
    request = adapter.preview_request(prompt.render(), prompt.name)
    return dataclasses.replace(request, run_id="retries", retries=retries)


def _text(deltas: list[Any]) -> str:
    assert isinstance(deltas[-1], TurnEnd), "a stream ends with its TurnEnd"
    return "".join(delta.text for delta in deltas if isinstance(delta, TextPiece))
