"""``Evaluator``: the runner — the evaluate API over the sans-IO loop, holding one model.

The model (:class:`~affordance.runtime.model.Model`) sends one request and answers one
normalized :class:`ProviderTurn`. Everything else is here and in the loop: the runner's loop
options, starting or resuming an evaluation with them (``run_start``; the resume checks are
``resumption``'s), the per-turn ``tool_choice`` rule, tool execution, confirmations, disclosure
and events. What the runner does as the model it holds is its base's,
:class:`~affordance.runtime.loop.runner_model.RunnerModel`. An evaluation and its tool handlers
see this class through protocols (``EvaluationRunner``, ``Runner``), so nothing below it
imports it.

``Evaluator(connection, ...)`` runs any model (``connection``, kept as ``evaluator.connection``:
``model`` is a provider adapter's model name): every provider adapter does, holding its
provider's model (:class:`affordance.adapters.ProviderAdapter`). A subclass that implements
:meth:`Evaluator.send` and :meth:`Evaluator.asend` itself is its own model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from affordance.attachments import DEFAULT_MAX_ATTACHMENT_BYTES
from affordance.clock import Deadline
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.loop.chain import ChainModel
from affordance.runtime.loop.drivers import drive, drive_async
from affordance.runtime.loop.run_start import begin_run
from affordance.runtime.loop.runner_model import RunnerModel
from affordance.runtime.loop.streaming import stream_async, stream_sync
from affordance.runtime.model.compaction import HistoryHook
from affordance.runtime.model.connection import Model
from affordance.runtime.model.limits import UsageLimits
from affordance.runtime.model.messages import Message, UserMessage
from affordance.runtime.model.output import output_name, output_schema
from affordance.runtime.model.prices import Prices
from affordance.runtime.model.turn import ModelRequest, ToolChoice, tool_choice_for_turn
from affordance.runtime.record.bus import EventBus
from affordance.runtime.record.confirmation import Confirmation
from affordance.runtime.record.conversation import ConversationHandle
from affordance.runtime.record.response import PromptResponse
from affordance.runtime.record.session import Session
from affordance.runtime.record.streams import AsyncEventStream, EventStream

if TYPE_CHECKING:
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["Evaluator"]

OutputT = TypeVar("OutputT")


class Evaluator(RunnerModel):
    """Evaluates prompts against one model connection.

    ``open_sections="apply"`` (the default) lets the loop apply what the model opens with
    ``open_sections`` — merge the overrides, re-render, continue — up to ``max_expansions``
    times; ``"return"`` hands the request back in ``PromptResponse.expansion`` instead.

    ``tool_choice`` is ``"auto"``, ``"none"``, ``"required"``, a tool name, or a provider's wire
    mapping sent as is. ``"required"`` and a name force a call, so they apply to the first turn
    only and later turns use ``"auto"`` (otherwise the model could never answer).
    ``parallel_tool_calls=False`` asks for at most one call per turn where the provider allows it.
    ``prices`` prices each turn's usage (``Usage.cost``); runs with a cost limit use
    ``genai-prices`` when none is given. ``max_attachment_bytes`` bounds each image or document
    a request carries (``None``: no bound; see ``affordance.attachments``).
    """

    name: ClassVar[str] = "provider"

    def __init__(
        self,
        connection: Model | None = None,
        *,
        executor: ToolExecutor | None = None,
        max_turns: int = 16,
        open_sections: Literal["apply", "return"] = "apply",
        max_expansions: int = 4,
        tool_choice: ToolChoice | None = None,
        parallel_tool_calls: bool | None = None,
        prices: Prices | None = None,
        max_attachment_bytes: int | None = DEFAULT_MAX_ATTACHMENT_BYTES,
    ) -> None:
        if open_sections not in ("apply", "return"):
            raise ValueError(f"open_sections must be 'apply' or 'return', got {open_sections!r}")
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        if tool_choice is not None and not isinstance(tool_choice, (str, Mapping)):
            raise TypeError(f"tool_choice must be a string or a mapping, got {tool_choice!r}")
        if connection is None:
            own = [m for m in ("send", "asend") if getattr(type(self), m) is getattr(Evaluator, m)]
            if own:
                raise TypeError(
                    f"{type(self).__qualname__} has no model: pass its connection "
                    f"(Evaluator(connection, ...)) or implement {' and '.join(own)} in the class"
                )
        self.connection: Model = connection if connection is not None else self
        self.executor = executor if executor is not None else ToolExecutor()
        self.max_turns = max_turns
        self.open_sections = open_sections
        self.max_expansions = max_expansions
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.prices = prices
        self.max_attachment_bytes = max_attachment_bytes

    def preview_request(self, rendered: RenderedPrompt[Any], prompt_name: str) -> ModelRequest:
        """The first request an evaluation of ``rendered`` would send (no caller messages):
        what ``affordance render --provider`` shows, through the adapter's ``wire_request``."""
        tools, hosted = rendered.tools, rendered.hosted_tools
        return ModelRequest(
            prompt_name=prompt_name,
            run_id="preview",
            turn=1,
            rendered=rendered,
            instructions=None,
            messages=(UserMessage(rendered.text),),
            tools=tools,
            hosted_tools=hosted,
            output_schema=output_schema(rendered.output_type),
            output_name=output_name(rendered.output_type),
            tool_choice=tool_choice_for_turn(self.tool_choice, 1) if tools or hosted else None,
            parallel_tool_calls=self.parallel_tool_calls,
        )

    # -- the evaluate API --------------------------------------------------------------------

    def evaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> PromptResponse[OutputT]:
        """Evaluate ``prompt`` to a final answer, running tools as the model calls them.

        Pass ``confirmations`` (with the ``session`` of the suspended run) to resume an
        evaluation that returned pending confirmations. ``limits`` bound what the run may
        spend (:class:`~affordance.runtime.model.limits.UsageLimits`); a run that reaches one
        raises ``UsageLimitExceeded`` and is resumed with ``resume=error.run_id``, its
        session and higher ``limits``. ``history`` shapes what each request carries of the
        conversation (see ``affordance.runtime.model.compaction``). ``conversation``
        (``affordance.conversations``) loads the history before ``messages`` and appends the
        run's new messages to it, each once. ``overrides`` (a store, read under
        ``overrides_tag``, or the overrides themselves) changes the prompt's texts for this run
        (``affordance.prompt.overrides``); each one it skips is an ``OverrideSkipped`` event.
        """
        evaluation, action = begin_run(
            self,
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
            limits,
            resume,
            history,
            conversation,
            overrides=overrides,
            overrides_tag=overrides_tag,
        )
        return drive(evaluation, action, self.send)

    async def aevaluate(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> PromptResponse[OutputT]:
        """The async form of :meth:`evaluate`; tool calls of one turn run concurrently."""
        evaluation, action = begin_run(
            self,
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
            limits,
            resume,
            history,
            conversation,
            asynchronous=True,
            overrides=overrides,
            overrides_tag=overrides_tag,
        )
        return await drive_async(evaluation, action, self.asend)

    def stream(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> EventStream:
        """Evaluate ``prompt`` like :meth:`evaluate`, yielding events as they happen:
        ``with adapter.stream(prompt) as events: for event in events: ...``. The last event is
        ``RunFinished`` carrying the same ``PromptResponse`` ``evaluate`` returns."""
        pending: list[object] = []
        evaluation, action = begin_run(
            self,
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
            limits,
            resume,
            history,
            conversation,
            observer=pending.append,
            overrides=overrides,
            overrides_tag=overrides_tag,
        )
        resumed = confirmations is not None or resume is not None
        return EventStream(
            stream_sync(evaluation, action, self.send_stream, pending, resumed=resumed)
        )

    def astream(
        self,
        prompt: PromptTemplate[OutputT],
        *params: Any,
        session: Session | None = None,
        bus: EventBus | None = None,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
        max_turns: int | None = None,
        limits: UsageLimits | None = None,
        resume: str | None = None,
        history: HistoryHook | None = None,
        conversation: ConversationHandle | None = None,
    ) -> AsyncEventStream:
        """The async form of :meth:`stream`:
        ``async with adapter.astream(prompt) as events: async for event in events: ...``."""
        pending: list[object] = []
        evaluation, action = begin_run(
            self,
            prompt,
            params,
            session,
            bus,
            messages,
            visibility_overrides,
            confirmations,
            deadline,
            max_turns,
            limits,
            resume,
            history,
            conversation,
            observer=pending.append,
            asynchronous=True,
            overrides=overrides,
            overrides_tag=overrides_tag,
        )
        resumed = confirmations is not None or resume is not None
        return AsyncEventStream(
            stream_async(evaluation, action, self.asend_stream, pending, resumed=resumed)
        )

    # -- tool chaining (seed 004) -----------------------------------------------------------

    def run_chain(
        self,
        prompt: PromptTemplate[Any],
        steps: Sequence[Mapping[str, Any]],
        *params: Any,
        context: Mapping[str, Any] | None = None,
        session: Session | None = None,
        bus: EventBus | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
    ) -> PromptResponse[Any]:
        """Run ``steps`` (``[{"tool": name, "args": {...}}, ...]``, ``"$name"`` referring to
        ``context`` and earlier outputs) against the tools ``prompt`` exposes, through this
        runner's executor, one after another; the first failed step stops the chain. A
        destructive step waits for confirmation like a model's call: pass ``session`` and
        ``confirmations`` (with the same steps) to go on. See ``affordance.runtime.loop.chain``.
        ``response.tool_results`` has one result per step run; ``finish_reason`` is
        ``"chain_complete"`` or ``"chain_stopped"``."""
        return self._chain(steps, context).evaluate(
            prompt,
            *params,
            session=session,
            bus=bus,
            confirmations=confirmations,
            deadline=deadline,
        )

    async def arun_chain(
        self,
        prompt: PromptTemplate[Any],
        steps: Sequence[Mapping[str, Any]],
        *params: Any,
        context: Mapping[str, Any] | None = None,
        session: Session | None = None,
        bus: EventBus | None = None,
        confirmations: Mapping[str, Confirmation] | None = None,
        deadline: Deadline | float | None = None,
    ) -> PromptResponse[Any]:
        """The async form of :meth:`run_chain`: async handlers are awaited on this loop."""
        return await self._chain(steps, context).aevaluate(
            prompt,
            *params,
            session=session,
            bus=bus,
            confirmations=confirmations,
            deadline=deadline,
        )

    def _chain(
        self, steps: Sequence[Mapping[str, Any]], context: Mapping[str, Any] | None
    ) -> Evaluator:
        """A runner whose model answers with ``steps``, on this runner's executor."""
        return Evaluator(
            ChainModel(steps, context), executor=self.executor, max_turns=len(steps) + 1
        )
