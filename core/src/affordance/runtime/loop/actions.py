"""What the evaluation loop asks its driver to do: the actions of the sans-IO state machine."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from affordance._frozen import frozen
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.prepared import PreparedCall
from affordance.runtime.model.turn import ModelRequest
from affordance.runtime.record.response import PromptResponse

__all__ = ["Action", "Finished", "RunCalls", "SendRequest"]

OutputT = TypeVar("OutputT")


@frozen
class SendRequest:
    """Send this request to the model and pass the answer to ``on_turn``."""

    request: ModelRequest


@frozen
class RunCalls:
    """Run these calls (concurrently if you can) and pass the outcomes to ``on_outcomes``."""

    calls: tuple[tuple[PreparedCall, ToolContext], ...]


@frozen
class Finished(Generic[OutputT]):
    response: PromptResponse[OutputT]


Action = SendRequest | RunCalls | Finished[Any]
