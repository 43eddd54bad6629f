"""The events of a streamed evaluation: one set for every provider.

``adapter.stream(...)`` / ``astream(...)`` yield these small frozen values in order:
:class:`RunStarted` first, :class:`RunFinished` (with the final ``PromptResponse``) last.
Text arrives as :class:`TextDelta`; each tool call as :class:`ToolCallStarted` (and
:class:`ToolCallArgumentsDelta` where the provider streams arguments) while the model speaks,
then :class:`ToolCallFinished` with its ``ToolResult`` once tools have run. Each event has a
``kind`` (``"text_delta"``...) for serializing, e.g. as server-sent events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from affordance._frozen import frozen
from affordance.runtime.model.turn import Usage
from affordance.tools.hosted import HostedToolOutput
from affordance.tools.result import ToolResult

if TYPE_CHECKING:
    from affordance.runtime.record.response import PromptResponse

__all__ = [
    "ConfirmationRequired",
    "HostedToolActivity",
    "HostedToolResult",
    "OutputRetry",
    "RefusalDelta",
    "RunFinished",
    "RunStarted",
    "StreamEvent",
    "TextDelta",
    "ToolCallArgumentsDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "TurnFinished",
]


@frozen
class RunStarted:
    """The evaluation began (``resumed``: it continues a run suspended for confirmation)."""

    kind: ClassVar[str] = "run_started"
    prompt_name: str
    run_id: str
    resumed: bool = False


@frozen
class TextDelta:
    """More of the model's answer."""

    kind: ClassVar[str] = "text_delta"
    text: str
    turn: int = 0


@frozen
class RefusalDelta:
    """More of a refusal the provider sends apart from the answer."""

    kind: ClassVar[str] = "refusal_delta"
    text: str
    turn: int = 0


@frozen
class ToolCallStarted:
    """The model began calling a tool."""

    kind: ClassVar[str] = "tool_call_started"
    call_id: str
    name: str
    turn: int = 0


@frozen
class ToolCallArgumentsDelta:
    """A piece of a call's arguments (JSON text), where the provider streams them."""

    kind: ClassVar[str] = "tool_call_arguments_delta"
    call_id: str
    text: str


@frozen
class ToolCallFinished:
    """A call has its result: the handler's, a cached one, or a failure the model will read."""

    kind: ClassVar[str] = "tool_call_finished"
    call_id: str
    name: str
    result: ToolResult[Any]
    turn: int = 0

    @property
    def success(self) -> bool:
        return self.result.success


@frozen
class ConfirmationRequired:
    """A destructive call waits for approval; the run pauses exactly as ``evaluate`` does and
    resumes with ``confirmations={call_id: approve()}`` and the run's session."""

    kind: ClassVar[str] = "confirmation_required"
    call_id: str
    name: str
    arguments: Mapping[str, Any]


@frozen
class HostedToolActivity:
    """A provider-run tool is at work (``status``: ``searching``, ``interpreting``, ...)."""

    kind: ClassVar[str] = "hosted_tool_activity"
    item_type: str
    status: str
    item_id: str | None = None


@frozen
class HostedToolResult:
    """The typed output a hosted tool produced in the last turn (``name`` is the tool's)."""

    kind: ClassVar[str] = "hosted_tool_result"
    name: str
    output: HostedToolOutput


@frozen
class OutputRetry:
    """The final answer of ``turn`` was not accepted (see ``problems``); the text streamed for
    it is set aside and the model answers again in the next turn."""

    kind: ClassVar[str] = "output_retry"
    turn: int
    attempt: int
    problems: tuple[str, ...]


@frozen
class TurnFinished:
    """The model finished one turn."""

    kind: ClassVar[str] = "turn_finished"
    turn: int
    usage: Usage
    finish_reason: str


@frozen
class RunFinished:
    """The evaluation returned: finished, or suspended awaiting confirmation. Always last."""

    kind: ClassVar[str] = "run_finished"
    response: PromptResponse[Any]


StreamEvent: TypeAlias = (
    RunStarted
    | TextDelta
    | RefusalDelta
    | ToolCallStarted
    | ToolCallArgumentsDelta
    | ToolCallFinished
    | ConfirmationRequired
    | HostedToolActivity
    | HostedToolResult
    | OutputRetry
    | TurnFinished
    | RunFinished
)
