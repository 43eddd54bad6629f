"""The evaluation loop, written once as a sans-IO state machine.

:class:`Evaluation` never sends a request or runs a handler itself. It returns *actions* —
:class:`SendRequest`, :class:`RunCalls`, :class:`Finished` — and the drivers
(``affordance.runtime.loop.drivers`` and ``.streaming``) perform them (sync or async) and feed
the results back through :meth:`Evaluation.on_turn` and :meth:`Evaluation.on_outcomes`. Every
decision — tool failure semantics, terminal tools, confirmations, disclosure, structured output,
turn and deadline bounds — lives here, in its mixins and in the turn's calls (``turn_calls``),
so both drivers and every provider share it.

This module holds the path of every turn: the next request, the model's answer, the turn's
calls and their outcomes, closing the turn. The rest is in the evaluation's mixins, a module
each: ``rendering`` (the prompt as requests show it), ``run_limits`` (bounds and usage),
``finishing`` (the final answer and the response), ``suspension`` (waiting for the caller's
answers), ``kept_conversation`` and ``publishing`` (its events). A mixin has ``__slots__ = ()``
— the evaluation keeps every attribute in its own slots — and a method found on a base costs
no more than one defined here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._ids import new_id
from affordance.clock import Deadline
from affordance.errors import OutputAttempt
from affordance.prompt.disclosure import requested_overrides
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.calls.prepared import CallOutcome
from affordance.runtime.loop.actions import Action, RunCalls, SendRequest
from affordance.runtime.loop.evaluation_runner import EvaluationRunner
from affordance.runtime.loop.finishing import Finishing
from affordance.runtime.loop.hosted_waiting import HostedWaiting
from affordance.runtime.loop.kept_conversation import KeptConversation
from affordance.runtime.loop.publishing import Publishing
from affordance.runtime.loop.rendering import Rendering
from affordance.runtime.loop.run_limits import RunLimits
from affordance.runtime.loop.suspension import Suspension
from affordance.runtime.loop.turn_calls import TurnCalls, refuse_shared_ids
from affordance.runtime.loop.usage_split import priced, switch_events
from affordance.runtime.model.attachment_rules import refuse_unfit, support_of
from affordance.runtime.model.compaction import HistoryHook, compacted
from affordance.runtime.model.limits import UsageLimits
from affordance.runtime.model.messages import AssistantMessage, Message
from affordance.runtime.model.output import output_name, output_schema
from affordance.runtime.model.prices import Prices
from affordance.runtime.model.turn import (
    NO_USAGE,
    PAUSED,
    ModelRequest,
    ProviderTurn,
    ToolChoice,
    Usage,
    tool_choice_for_turn,
)
from affordance.runtime.record.bus import EventBus
from affordance.runtime.record.conversation import ConversationHandle
from affordance.runtime.record.events import OverrideSkipped
from affordance.runtime.record.response import ToolCallResult
from affordance.runtime.record.session import Session
from affordance.tools.hosted import HostedToolOutput

if TYPE_CHECKING:
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["Evaluation", "EvaluationRunner"]

OutputT = TypeVar("OutputT")


class Evaluation(
    Rendering,
    RunLimits,
    Finishing,
    Suspension,
    KeptConversation,
    Publishing,
    Generic[OutputT],
):
    """One evaluation of a prompt: its transcript, turn count and the current turn's calls."""

    # Every attribute lives in a slot: read and written at one fixed cost, set or not by a run
    # (an instance __dict__ shares at most thirty attributes between instances, and a read of
    # a class default through an instance with a __dict__ takes the slow path).
    __slots__ = (
        "__weakref__",
        "_by_provider",
        "_caller_messages",
        "_calls",
        "_conversation_length",
        "_hosted",
        "_last_input",
        "_opening",
        "_output_name",
        "_output_schema",
        "_overrides",
        "_paused_text",
        "_rejected",
        "_request",
        "_saved",
        "_stopped",
        "_tools",
        "_transcript",
        "_unsaved_caller",
        "_watch_from",
        "adapter",
        "asynchronous",
        "bus",
        "conversation",
        "deadline",
        "executor",
        "expansions",
        "history",
        "hosted_outputs",
        "limits",
        "max_expansions",
        "max_turns",
        "observer",
        "opened",
        "overrides",
        "overrides_tag",
        "parallel_tool_calls",
        "params",
        "prices",
        "prompt",
        "rendered",
        "run_id",
        "session",
        "tool_choice",
        "tool_results",
        "turn",
        "usage",
    )

    rendered: RenderedPrompt[OutputT]

    def __init__(
        self,
        *,
        prompt: PromptTemplate[OutputT],
        params: Sequence[Any],
        adapter: EvaluationRunner,
        session: Session,
        bus: EventBus,
        executor: ToolExecutor,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        overrides: OverridesStore | PromptOverrides | None = None,
        overrides_tag: str = "latest",
        max_turns: int = 16,
        max_expansions: int = 0,
        deadline: Deadline | None = None,
        run_id: str | None = None,
        tool_choice: ToolChoice | None = None,
        parallel_tool_calls: bool | None = None,
        limits: UsageLimits | None = None,
        prices: Prices | None = None,
        history: HistoryHook | None = None,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self.prompt = prompt
        self.params = tuple(params)
        self.adapter = adapter
        self.session = session
        self.bus = bus
        self.executor = executor
        self.max_turns = max_turns
        self.max_expansions = max_expansions
        self.deadline = deadline
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        # run controls: what the caller gave
        self.limits: UsageLimits | None = limits
        self.prices: Prices | None = prices
        self.history: HistoryHook | None = history
        self.overrides: OverridesStore | PromptOverrides | None = overrides
        self.overrides_tag = overrides_tag
        # state most runs never change
        self._by_provider: dict[str, Usage] | None = None  # once another provider answered
        self._rejected: tuple[OutputAttempt, ...] = ()  # final answers not accepted, in order
        self._stopped: Callable[[], Action] | None = None  # where a usage limit stopped the run
        self.asynchronous = False  # awaited on an event loop (set by the runner: aevaluate...)
        self.conversation: ConversationHandle | None = None  # where its messages are appended
        self._conversation_length = 0  # the conversation's length when last loaded/appended
        self._unsaved_caller: tuple[Message, ...] = ()  # the caller's messages, until appended
        self._saved = 0  # how much of the transcript the conversation holds
        self._last_input = 0  # input tokens of the last request, the least the next reads
        self.run_id = run_id or new_id()
        self.turn = 0
        self.usage: Usage = NO_USAGE
        self.hosted_outputs: dict[str, HostedToolOutput] = {}
        self.tool_results: list[ToolCallResult] = []
        self.opened: list[SectionPath] = []
        self.expansions = 0
        self._caller_messages = tuple(messages)
        self._transcript: list[Message] = []
        self._overrides = session.visibility_overrides()  # the run's own: opening adds to it
        if visibility_overrides:
            self._overrides.update(visibility_overrides)
        self._request: ModelRequest | None = None
        self._hosted: HostedWaiting | None = None  # once a turn used a declared hosted tool
        self._paused_text: list[str] = []
        self.observer: Callable[[object], None] | None = None
        self._watch_from = max_turns  # see _rewatch
        if limits is not None and limits.first_watch < max_turns:
            self._watch_from = limits.first_watch
        self._render()  # sets rendered, _opening and _tools
        for skipped in self.rendered.skipped_overrides:
            self._emit(OverrideSkipped(prompt.name, self.run_id, skipped))
        self._calls = TurnCalls(executor, prompt, self.run_id)
        self._output_schema = output_schema(prompt.output_type)
        self._output_name = output_name(prompt.output_type)

    # -- driving ---------------------------------------------------------------------------

    def start(self) -> Action:
        caller = self._caller_messages
        if caller and any(getattr(m, "attachments", ()) for m in caller):
            refuse_unfit(
                self._caller_messages,
                support_of(self.adapter.connection),
                self._attachment_limit(),
                provider=self.adapter.connection.name,
                prompt_name=self.prompt.name,
            )
        return self._next_request()

    def on_turn(self, turn: ProviderTurn) -> Action:
        """Consume the model's answer: finish, or decide what to do with its tool calls."""
        request = self._request
        if request is not None:
            turn = self.adapter.normalize_turn(turn, request)
        calls = turn.tool_calls
        if len(calls) > 1:
            refuse_shared_ids(calls, self.prompt.name, self.adapter.connection.name)
        usage = turn.usage
        if usage is not NO_USAGE:
            if self.prices is not None and usage.cost is None:
                usage = priced(turn, self.prices, self.adapter.connection)
            if turn.provider is None and self._by_provider is None:
                self.usage = self.usage + usage  # the common case: _count's first branch
            else:
                self._count(usage, turn.provider or self.adapter.connection.name)
            if self.limits is not None:  # the least the next request reads; whether that is
                self._last_input = usage.input_tokens  # near a limit is asked where the run
                # goes on: before calls (_take_calls) or another request (_rewatch)
        if turn.switches:
            for event in switch_events(
                turn, self.prompt.name, self.run_id, self.turn, self.adapter
            ):
                self._emit(event)
        # only the hosted tools the request declared are read (policy)
        declared = request.hosted_tools if turn.hosted_items and request is not None else ()
        if declared:
            self.hosted_outputs.update(
                self.adapter.parse_hosted_outputs(turn.hosted_items, declared)
            )
        items = turn.provider_items
        self._transcript.append(
            AssistantMessage(
                turn.text,
                calls,
                items,
                (turn.provider or self.adapter.connection.name) if items else None,
            )
        )
        if declared:
            if self._hosted is None:
                self._hosted = HostedWaiting(prompt_name=self.prompt.name, run_id=self.run_id)
            self._hosted.look(turn, declared, self.adapter, self._transcript, self._emit)
        if not calls:
            if self._hosted:
                if self.limits is not None:
                    self._rewatch()
                return self._suspend()  # the provider runs nothing until the caller answers
            if turn.finish_reason == PAUSED:
                if turn.text:
                    self._paused_text.append(turn.text)
                if self.limits is not None:
                    self._rewatch()
                return self._next_request()  # the provider paused its own turn: continue it
            return self._finish(turn)  # a final answer asks no limit (a retry does: _ask_again)
        return self._take_calls(turn)

    def _take_calls(self, turn: ProviderTurn) -> Action:
        """Run (or refuse, or hold for confirmation) the calls of ``turn`` — unless a limit
        stops the run before them."""
        limits = self.limits
        if limits is not None:
            spent = self.usage  # limits.near(spent, last), inlined on the path of every turn
            if spent.input_tokens + spent.output_tokens + self._last_input >= limits.watch:
                self._watch_from = 0  # usage only grows: near until new limits are set
                self._check_calls(turn)  # near a token or cost limit: it looks closer
            elif len(self.tool_results) + len(turn.tool_calls) > limits.caps[1]:
                self._check_calls(turn)
        to_run = self._calls.prepare(
            turn.tool_calls,
            turn=self.turn,
            tools=self._tools,
            rendered=self.rendered,
            emit=self._emit,
            context=self._context,
        )
        return RunCalls(to_run) if to_run else self.on_outcomes(())

    def on_outcomes(self, outcomes: Sequence[CallOutcome]) -> Action:
        """Record the outcomes of a :class:`RunCalls`; then continue, suspend or finish."""
        waiting = self._calls.record(outcomes, self._emit)
        if self.session.nested_usage:  # what calls spent on nested runs (PromptTool)
            for provider, usage in self.session.take_usage(self.run_id):
                self._count(usage, provider)
            if self.limits is not None:
                self._rewatch()
        return self._suspend() if waiting or self._hosted else self._close_turn()

    def has_transcript(self) -> bool:
        """Whether the run has any turn of its own yet (a resumed run has)."""
        return bool(self._transcript)

    # -- closing a turn ----------------------------------------------------------------------

    def _close_turn(self) -> Action:
        terminal_result = self._calls.close(self._transcript, self.tool_results, self._admit)
        if terminal_result is not None and terminal_result.success:
            overrides = requested_overrides(terminal_result.value)
            if overrides and self.expansions < self.max_expansions:
                self.expansions += 1
                self._open(overrides)
                return self._next_request()
            return self._respond(
                text=None, finish_reason="terminal_tool", expansion=overrides or None
            )
        return self._next_request()

    # -- requests --------------------------------------------------------------------------

    def _next_request(self) -> Action:
        if self.turn >= self._watch_from or self.deadline is not None:
            self._may_send()
        self.turn = turn = self.turn + 1
        rendered = self.rendered
        if self._caller_messages:
            instructions: str | None = rendered.text
            messages: tuple[Message, ...] = (*self._caller_messages, *self._transcript)
        else:
            instructions = None
            messages = (self._opening, *self._transcript)
        if self.history is not None:
            messages = compacted(self.history, messages, prompt_name=self.prompt.name)
        hosted = rendered.hosted_tools
        if hosted:
            hosted = self._allowed_hosted(hosted)
        tools = rendered.tools
        choice = self.tool_choice
        if choice is not None:  # a request without tools asks for none
            choice = tool_choice_for_turn(choice, turn) if tools or hosted else None
        # every field in order, none by keyword: a class called with keywords passes them
        # through a dict built per call (0.3 µs more for this one, two or more per run)
        self._request = request = ModelRequest(
            self.prompt.name,
            self.run_id,
            turn,
            rendered,
            instructions,
            messages,
            tools,
            hosted,  # hosted_tools
            self._output_schema,
            self._output_name,
            self.deadline,
            choice,  # tool_choice
            self.parallel_tool_calls,
        )
        return SendRequest(request)

    # -- helpers ---------------------------------------------------------------------------

    def _context(self, call_id: str) -> ToolContext:
        # fields in order, not by keyword (see _next_request)
        return ToolContext(
            self.prompt,
            self.rendered,  # rendered_prompt
            self.adapter,
            self.session,
            self.bus,  # event_bus
            self.run_id,
            self.turn,
            call_id,
            self.deadline,
            None,  # nested_answers
            self.asynchronous,
        )
