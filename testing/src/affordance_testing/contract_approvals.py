"""One approval runs one call: the promise every adapter keeps about destructive tools.

A case (:class:`ApprovalCase`) is one turn in which the model calls the destructive tool
``delete`` — its call ids may repeat — and the caller's answers to what is then pending: each
names a pending call by its position or a call id by its text, and is an approval, a denial, or
a value that is no answer at all. :func:`check_approval_case` runs the case one of the four ways
and checks that

- a turn whose calls share an id is refused before anything runs (a provider that gives each
  call an id of its own, as the Gemini adapter does for ids the wire lacks or repeats, goes on:
  then every pending id is distinct);
- nothing runs before an answer; answers that do not fit the pending calls exactly (an id that
  is not pending, a pending call left unanswered, a value that is not ``approve()`` or
  ``deny()``) are refused and change nothing: the calls stay pending, and a later answer that
  fits runs exactly the calls it approves;
- each approved call runs once, with the arguments shown while it was pending; no other does.

:class:`~affordance_testing.contract.AdapterContract` runs a fixed list of cases
(:data:`APPROVAL_CASES`) over each provider's wire, and the plugins' property tests draw cases
with ``hypothesis``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from affordance import RunFinished
from affordance.adapters import ProviderAdapter, ProviderTurn, ToolCall
from affordance.errors import PromptEvaluationError
from affordance.prompt import MarkdownSection, PromptTemplate
from affordance.runtime import Confirmation, PromptResponse, Session, ToolContext, approve, deny
from affordance.tools import Tool, ToolResult
from affordance_testing.contract_fixtures import MakeAdapter
from affordance_testing.faults import Mode

__all__ = [
    "APPROVAL_CASES",
    "ApprovalCase",
    "Verdict",
    "answered_by",
    "approval_prompt",
    "approval_property",
    "approval_turn",
    "check_approval_case",
    "model_of",
]

Verdict = Literal["approve", "deny", "no answer"]
"""An answer's value: ``approve()``, ``deny()``, or ``True`` (a value that is not one)."""

ENTITY_MARK = "ent-"
"""Begins each entity the model asks to delete; a request holding it answers the calls."""


@dataclass(frozen=True)
class ApprovalCase:
    """The model's ``delete`` calls in one turn (by id, in order) and the caller's answers:
    ``(target, verdict)``, the target a pending call's position (an ``int``, wrapping around) or
    a call id as text."""

    call_ids: tuple[str, ...]
    answers: tuple[tuple[int | str, Verdict], ...]

    def __str__(self) -> str:
        answers = ",".join(f"{target}:{verdict}" for target, verdict in self.answers)
        return f"{'+'.join(self.call_ids)}={answers}"


APPROVAL_CASES: tuple[ApprovalCase, ...] = (
    ApprovalCase(("call_1",), ((0, "approve"),)),
    ApprovalCase(("call_1", "call_2"), ((0, "approve"), (1, "deny"))),
    ApprovalCase(("call_1", "call_1"), ((0, "approve"),)),
    ApprovalCase(("call_1", "call_2", "call_1"), ((0, "approve"), (1, "approve"))),
    ApprovalCase(("call_1",), ((0, "approve"), ("call_9", "approve"))),  # one more, not pending
    ApprovalCase(("call_1", "call_2"), ((0, "approve"),)),  # one pending call unanswered
    ApprovalCase(("call_1",), ((0, "no answer"),)),
)


@dataclass(frozen=True)
class _DeleteParams:
    entity_id: str


def approval_prompt(deleted: list[tuple[str, str]]) -> PromptTemplate[Any]:
    """A prompt with one destructive tool, ``delete``, whose handler records each run as
    ``(call id, entity id)`` in ``deleted``."""

    def delete(params: _DeleteParams, *, context: ToolContext) -> ToolResult[None]:
        deleted.append((context.call_id, params.entity_id))
        return ToolResult.ok(None, message=f"deleted {params.entity_id}")

    tool = Tool[_DeleteParams, None](
        name="delete", description="Delete an entity for good.", handler=delete, destructive=True
    )
    section: MarkdownSection[Any] = MarkdownSection(
        title="Task", template="Clean up.", tools=[tool]
    )
    return PromptTemplate(name="approvals", sections=[section])


def approval_turn(case: ApprovalCase, answered: bool) -> ProviderTurn:
    """The model of a case: its calls, or once the request carries their results
    (``answered``), its final answer."""
    if answered:
        return ProviderTurn(text="Done.")
    calls = tuple(
        ToolCall(call_id, "delete", json.dumps({"entity_id": f"{ENTITY_MARK}{index}"}))
        for index, call_id in enumerate(case.call_ids)
    )
    return ProviderTurn(tool_calls=calls, finish_reason="tool_calls")


def check_approval_case(make_adapter: MakeAdapter, mode: Mode, case: ApprovalCase) -> None:
    """Run ``case`` one of the four ways (one adapter for the run and its resumption) and check
    the promise above; the model must answer as :func:`approval_turn` says."""
    deleted: list[tuple[str, str]] = []
    prompt = approval_prompt(deleted)
    session = Session()
    with _Runner(make_adapter, mode) as runner:
        try:
            suspended = runner.evaluate(prompt, session=session)
        except PromptEvaluationError as raised:
            refused: PromptEvaluationError | None = raised
        else:
            refused = None
        if refused is not None:
            assert len(set(case.call_ids)) < len(case.call_ids), f"refused: {refused}"
            assert refused.phase == "response"
            assert deleted == [], "a call ran in a turn that was refused"
            return
        pending = suspended.pending_confirmations
        assert suspended.finish_reason == "confirmation_required"
        assert len(pending) == len(case.call_ids), "each call is pending on its own"
        assert len({p.call_id for p in pending}) == len(pending), "pending ids are distinct"
        assert deleted == [], "a destructive call ran before it was approved"

        answers = _answers(case, [p.call_id for p in pending])
        if not _fits([p.call_id for p in pending], answers):
            with pytest.raises(PromptEvaluationError) as raised_info:
                runner.evaluate(prompt, session=session, confirmations=answers)
            assert raised_info.value.phase == "confirm"
            assert deleted == [], "a refused answer ran a call"
            # The refusal changed nothing: the first call alone approved now runs alone.
            answers = {p.call_id: approve() if i == 0 else deny() for i, p in enumerate(pending)}
        finished = runner.evaluate(prompt, session=session, confirmations=answers)

    assert finished.text == "Done."
    approved = {call_id for call_id, answer in answers.items() if answer.approved}
    expected = [(p.call_id, p.arguments["entity_id"]) for p in pending if p.call_id in approved]
    assert sorted(deleted) == sorted(expected), "the calls run are not the calls approved"


def _answers(case: ApprovalCase, pending: Sequence[str]) -> dict[str, Confirmation]:
    answers: dict[str, Any] = {}
    for target, verdict in case.answers:
        call_id = pending[target % len(pending)] if isinstance(target, int) else target
        answers[call_id] = _VALUES[verdict]
    return answers


def _fits(pending: Sequence[str], answers: Mapping[str, object]) -> bool:
    """Whether ``answers`` answer exactly the ``pending`` calls, each with ``approve()`` or
    ``deny()``: the answers the promise says a run takes (any others it refuses)."""
    return set(answers) == set(pending) and all(
        isinstance(answer, Confirmation) for answer in answers.values()
    )


_VALUES: Mapping[Verdict, object] = {
    "approve": approve(),
    "deny": deny("not now"),
    "no answer": True,
}


class _Runner:
    """One adapter of ``mode``'s kind, evaluating one of the four ways, for several runs
    (an async adapter stays on one event loop, as its client needs)."""

    def __init__(self, make_adapter: MakeAdapter, mode: Mode) -> None:
        self.mode = mode
        self.loop = None if mode in ("evaluate", "stream") else asyncio.new_event_loop()
        self.adapter: ProviderAdapter[Any] = make_adapter("sync" if self.loop is None else "async")

    def __enter__(self) -> _Runner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.loop is None:
            self.adapter.close()
            return
        try:
            self.loop.run_until_complete(self.adapter.aclose())
        finally:
            self.loop.close()

    def evaluate(self, prompt: PromptTemplate[Any], **options: Any) -> PromptResponse[Any]:
        adapter, mode = self.adapter, self.mode
        if mode == "evaluate":
            return adapter.evaluate(prompt, **options)
        if mode == "stream":
            with adapter.stream(prompt, **options) as events:
                last = list(events)[-1]
            assert isinstance(last, RunFinished)
            return last.response
        assert self.loop is not None
        return self.loop.run_until_complete(self._async(prompt, options))

    async def _async(
        self, prompt: PromptTemplate[Any], options: Mapping[str, Any]
    ) -> PromptResponse[Any]:
        if self.mode == "aevaluate":
            return await self.adapter.aevaluate(prompt, **options)
        async with self.adapter.astream(prompt, **options) as events:
            seen = [event async for event in events]
        assert isinstance(seen[-1], RunFinished)
        return seen[-1].response


def answered_by(body: str) -> bool:
    """Whether a request (its JSON text) carries the calls of a case, and so their results."""
    return ENTITY_MARK in body


def model_of(case: ApprovalCase) -> Callable[[str], ProviderTurn]:
    """The case's model for a wire's ``respond``: the calls, then the answer."""
    return lambda body: approval_turn(case, answered_by(body))


def approval_property(
    respond: Callable[[Callable[[str], ProviderTurn]], None], make_adapter: MakeAdapter
) -> Callable[[], None]:
    """A ``hypothesis`` test of the promise: cases drawn with ids from a small alphabet (so
    they repeat), answers by position or by any of those ids plus one never used, each run one
    of the four ways. ``respond`` sets the wire's model (a wire's ``respond``). Bounded and
    derandomized: the same 100 examples everywhere. Needs ``hypothesis``."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    ids = st.sampled_from(("call_1", "call_2", "toolu_01", "call_9"))
    targets = st.integers(min_value=0, max_value=3) | ids
    verdicts = st.sampled_from(("approve", "deny", "no answer"))
    cases = st.builds(
        ApprovalCase,
        st.lists(ids.filter(lambda i: i != "call_9"), min_size=1, max_size=3).map(tuple),
        st.lists(st.tuples(targets, verdicts), min_size=1, max_size=4).map(tuple),
    )

    @settings(
        max_examples=100,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases, mode=st.sampled_from(("evaluate", "aevaluate", "stream", "astream")))
    def check(case: ApprovalCase, mode: Mode) -> None:
        respond(model_of(case))
        check_approval_case(make_adapter, mode, case)

    return check
