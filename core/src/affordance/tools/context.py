"""What a tool handler receives besides its params: a frozen view of the running evaluation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from affordance.adapters.base import ProviderAdapter
    from affordance.clock import Deadline
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.prompt.template import PromptTemplate
    from affordance.runtime.events import EventBus
    from affordance.runtime.session import Session

__all__ = ["ToolContext"]


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Built fresh for every tool call and discarded afterwards.

    ``adapter`` lets a handler evaluate nested prompts with the same provider; ``session`` and
    ``event_bus`` are the ones of the outer evaluation, so nested work records against them.
    ``run_id``, ``turn`` and ``call_id`` correlate the call with logs and events.
    """

    prompt: PromptTemplate[Any]
    rendered_prompt: RenderedPrompt[Any] | None
    adapter: ProviderAdapter
    session: Session
    event_bus: EventBus
    run_id: str = ""
    turn: int = 0
    call_id: str = ""
    deadline: Deadline | None = None
