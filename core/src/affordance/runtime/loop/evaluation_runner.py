"""``EvaluationRunner``: what an evaluation needs of the runner it belongs to.

The runner is an :class:`~affordance.runtime.loop.Evaluator` (every provider adapter is one);
an evaluation, its parts and its tool handlers see it through this protocol, so nothing below
the runner imports it (``specs/RUNTIME.md``, "The rooms").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from affordance.runtime.calls.runner import Runner
from affordance.runtime.loop.hosted_waiting import HostedApprovalReader
from affordance.runtime.model.connection import Model
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.tools.hosted import HostedTool, HostedToolOutput

__all__ = ["EvaluationRunner"]


class EvaluationRunner(Runner, HostedApprovalReader, Protocol):
    """What an evaluation needs of the runner it belongs to (an ``Evaluator``): its model
    connection (named in errors), the model's reading of a turn, of its hosted-tool outputs
    and of the approvals they wait for, and the evaluate API its tool handlers reach
    (:class:`Runner`)."""

    @property
    def connection(self) -> Model: ...

    def normalize_turn(self, turn: ProviderTurn, request: ModelRequest) -> ProviderTurn: ...

    def parse_hosted_outputs(
        self, items: Sequence[Mapping[str, Any]], hosted_tools: Sequence[HostedTool[Any]]
    ) -> Mapping[str, HostedToolOutput]: ...
