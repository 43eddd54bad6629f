"""What a tool handler receives besides its params: a frozen view of the running evaluation.

:class:`ToolContext` lives in the runtime because the loop builds it and every field is the
loop's: the prompt being evaluated, its session and event bus, the runner driving it (seen
through :class:`~affordance.runtime.calls.runner.Runner`, its evaluate API).
:class:`ToolHandler` is the signature the executor calls.
"""

from __future__ import annotations

from collections.abc import Awaitable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from affordance._frozen import frozen
from affordance.runtime.record.nesting import nested_in
from affordance.tools.result import ToolResult

if TYPE_CHECKING:
    from affordance.clock import Deadline
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.prompt.template import PromptTemplate
    from affordance.runtime.calls.nested import NestedAnswers
    from affordance.runtime.calls.runner import Runner
    from affordance.runtime.model.turn import Usage
    from affordance.runtime.record.bus import EventBus
    from affordance.runtime.record.session import Session

__all__ = ["ToolContext", "ToolHandler"]

ParamsT_contra = TypeVar("ParamsT_contra", contravariant=True)
ResultT = TypeVar("ResultT")


@frozen
class ToolContext:
    """Built fresh for every tool call and discarded afterwards.

    ``adapter`` lets a handler evaluate nested prompts with the same provider; ``session`` and
    ``event_bus`` are the ones of the outer evaluation, so nested work records against them.
    ``run_id``, ``turn`` and ``call_id`` correlate the call with logs and events.

    A handler that runs a nested evaluation adds what it spent with :meth:`add_usage`, so the
    outer run's usage (and its limits) count it, runs it inside :meth:`nesting`, so its events
    name this call, and evaluates with the API the outer run uses: ``asynchronous`` says the
    run is awaited on an event loop (``aevaluate``/``astream``: use ``await
    context.adapter.aevaluate``; a provider adapter given one kind of client has only that
    kind). ``nested_answers`` holds the caller's answers when the call runs again after its
    nested run waited for them (see ``affordance.runtime.calls.nested``).
    """

    prompt: PromptTemplate[Any]
    rendered_prompt: RenderedPrompt[Any] | None
    adapter: Runner
    session: Session
    event_bus: EventBus
    run_id: str = ""
    turn: int = 0
    call_id: str = ""
    deadline: Deadline | None = None
    nested_answers: NestedAnswers | None = None
    asynchronous: bool = False

    def nesting(self) -> AbstractContextManager[None]:
        """A block whose runs are nested in this call: their ``EvaluationStarted`` names it
        (``parent_run_id``, ``parent_call_id``). ``PromptTool`` runs its prompt in one; a
        handler evaluating a prompt of its own can too."""
        return nested_in(self.run_id, self.call_id)

    def add_usage(self, usage: Usage, provider: str) -> None:
        """Count ``usage``, spent by ``provider`` on work this call did (a nested run), in the
        outer run's usage: kept in the session for the run, which adds it when the turn's
        calls are recorded."""
        if usage.input_tokens or usage.output_tokens:
            self.session.add_usage(self.run_id, usage, provider)


class ToolHandler(Protocol[ParamsT_contra, ResultT]):
    """The canonical handler: ``(params, *, context) -> ToolResult[Result]``.

    Handlers taking only ``params`` are accepted too, and ``async def`` handlers are awaited.
    """

    def __call__(
        self, params: ParamsT_contra, *, context: ToolContext
    ) -> ToolResult[ResultT] | Awaitable[ToolResult[ResultT]]: ...
