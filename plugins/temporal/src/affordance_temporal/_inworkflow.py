"""The pieces an ``Evaluation`` needs inside a workflow, made deterministic.

- :class:`WorkflowClock`: Temporal's workflow time (the same on every replay) for deadlines
  and the per-run result cache.
- :class:`WorkflowExecutor`: the executor's pure half (``prepare``) and its bookkeeping,
  which logs each call once: not again when a worker replays the history.
- :class:`StandIn`: the model connection (``affordance.runtime.Model``) the loop's
  ``Evaluator`` holds. Model turns reach the workflow already normalized by the worker's
  adapter, with their hosted-tool outputs parsed there, so it only hands those back; it never
  sends anything.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from temporalio import workflow

from affordance import HostedTool, HostedToolOutput, PromptEvaluationError, ToolExecutor
from affordance.adapters import Delta, ModelRequest, ProviderTurn
from affordance.runtime import CallOutcome

__all__ = ["StandIn", "WorkflowClock", "WorkflowExecutor"]


class WorkflowClock:
    """Seconds since the epoch as the workflow sees them; never sleeps outside the workflow."""

    __slots__ = ()

    def monotonic(self) -> float:
        return workflow.time()

    def sleep(self, seconds: float) -> None:
        raise RuntimeError("a workflow cannot block; nothing in the loop sleeps in a workflow")

    async def asleep(self, seconds: float) -> None:
        await workflow.sleep(seconds)


class WorkflowExecutor(ToolExecutor):
    """A per-run executor: ``prepare`` as usual (policy, validation, confirmation gate, the
    run's own cache), and each call logged once: not again while a worker replays."""

    def record(self, outcome: CallOutcome, *, run_id: str, turn: int) -> None:
        if not workflow.unsafe.is_replaying():
            super().record(outcome, run_id=run_id, turn=turn)


class StandIn:
    """Holds the place of the model connection (an ``affordance.runtime.Model``). ``hosted``
    is the latest turn's parsed hosted-tool outputs, set by the workflow before it feeds the
    turn to the loop; ``provider`` names it in the error a send gets."""

    name = "durable"

    def __init__(self, provider: str = "durable") -> None:
        self.hosted: Mapping[str, Any] = {}
        self.provider = provider

    def send(self, request: ModelRequest) -> ProviderTurn:
        raise self._refusal()

    async def asend(self, request: ModelRequest) -> ProviderTurn:
        raise self._refusal()

    def send_stream(self, request: ModelRequest) -> Iterator[Delta]:
        raise self._refusal()

    def asend_stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        raise self._refusal()

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn:
        return turn

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]:
        return dict(self.hosted)

    def _refusal(self) -> PromptEvaluationError:
        return PromptEvaluationError(
            "this evaluator has no model connection (it stands in for the worker's adapter in "
            "a durable run; a tool handler cannot evaluate a nested prompt here)",
            provider=self.provider,
        )
