"""``PromptResponse``: everything an evaluation produced."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._frozen import frozen
from affordance.runtime.model.messages import Message, ToolCall
from affordance.runtime.model.turn import NO_USAGE, Usage
from affordance.runtime.record.confirmation import PendingConfirmation
from affordance.tools.hosted import HostedToolOutput
from affordance.tools.result import ToolResult

if TYPE_CHECKING:
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.section import SectionVisibility
    from affordance.runtime.record.session import Session

__all__ = ["PromptResponse", "ToolCallResult"]

OutputT = TypeVar("OutputT")


@frozen
class ToolCallResult:
    """One tool call of the evaluation and the result the model received for it."""

    call: ToolCall
    result: ToolResult[Any]
    params: Any = None
    turn: int = 0

    @property
    def name(self) -> str:
        return self.call.name


@frozen
class PromptResponse(Generic[OutputT]):
    """The outcome of ``evaluate``.

    ``output`` is the parsed structured output (for ``Prompt[Output]``), ``text`` the model's
    final text. When destructive calls wait for approval, ``pending_confirmations`` lists them
    and the run is suspended in ``session`` until ``evaluate(..., confirmations=...)``
    resumes it. ``expansion`` holds the sections ``open_sections`` asked for when the loop
    handed that request back instead of applying it. ``usage_by_provider`` splits ``usage``
    by the provider that answered each turn: one entry unless a fallback switched (turns that
    report no usage, as offline adapters', add none).
    """

    prompt_name: str
    run_id: str
    session: Session
    output: OutputT | None = None
    text: str | None = None
    tool_results: tuple[ToolCallResult, ...] = ()
    hosted_outputs: Mapping[str, HostedToolOutput] = field(default_factory=dict)
    usage: Usage = NO_USAGE
    pending_confirmations: tuple[PendingConfirmation, ...] = ()
    expansion: Mapping[SectionPath, SectionVisibility] | None = None
    finish_reason: str = "stop"
    turns: int = 0
    messages: tuple[Message, ...] = ()
    usage_by_provider: Mapping[str, Usage] = field(default_factory=dict)

    @property
    def needs_confirmation(self) -> bool:
        return bool(self.pending_confirmations)
