"""The evaluation loop, written once as a sans-IO state machine.

:class:`Evaluation` never sends a request or runs a handler itself. It returns *actions* —
:class:`SendRequest`, :class:`RunCalls`, :class:`Finished` — and the drivers
(``affordance.runtime.loop.drivers`` and ``.streaming``) perform them (sync or async) and feed
the results back through :meth:`Evaluation.on_turn` and :meth:`Evaluation.on_outcomes`. Every
decision — tool failure semantics, terminal tools, confirmations, disclosure, structured output,
turn and deadline bounds — lives here and in the turn's calls (``turn_calls``), so both drivers
and every provider share it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, NoReturn, Protocol, TypeVar

from affordance._ids import new_id
from affordance.attachments import DEFAULT_MAX_ATTACHMENT_BYTES
from affordance.clock import Deadline
from affordance.errors import (
    OutputAttempt,
    OutputValidationError,
    PromptEvaluationError,
)
from affordance.prompt.disclosure import requested_overrides
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.calls.context import ToolContext
from affordance.runtime.calls.executor import ToolExecutor
from affordance.runtime.calls.prepared import CallOutcome
from affordance.runtime.calls.runner import Runner
from affordance.runtime.loop.actions import Action, Finished, RunCalls, SendRequest
from affordance.runtime.loop.answers import NotAcceptedError, accepted_output, retry_message
from affordance.runtime.loop.hosted_waiting import HostedApprovalReader, HostedWaiting
from affordance.runtime.loop.turn_calls import TurnCalls, refuse_shared_ids
from affordance.runtime.loop.usage_split import added, priced, split, switch_events
from affordance.runtime.model.attachment_rules import admitted, refuse_unfit, support_of
from affordance.runtime.model.compaction import HistoryHook, compacted
from affordance.runtime.model.connection import Model
from affordance.runtime.model.limits import Crossing, UsageLimits
from affordance.runtime.model.messages import (
    AssistantMessage,
    Message,
    UserMessage,
)
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
from affordance.runtime.record.confirmation import (
    Confirmation,
    PendingConfirmation,
    answer_problems,
)
from affordance.runtime.record.conversation import ConversationHandle, whole_until
from affordance.runtime.record.events import (
    EventBus,
    OutputRetried,
    OverrideSkipped,
    PromptExecuted,
    PromptRendered,
    ToolCallDenied,
)
from affordance.runtime.record.response import PromptResponse, ToolCallResult
from affordance.runtime.record.session import Session
from affordance.runtime.record.usage_limit import UsageLimitExceeded
from affordance.tools.hosted import HostedTool, HostedToolOutput
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.attachments import Attachment
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import OverridesStore

__all__ = ["Evaluation", "EvaluationRunner"]

OutputT = TypeVar("OutputT")


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


class Evaluation(Generic[OutputT]):
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
        self._overrides: dict[SectionPath, SectionVisibility] = {
            **session.visibility_overrides(),
            **(visibility_overrides or {}),
        }
        self._request: ModelRequest | None = None
        self._paused_text: list[str] = []
        self.observer: Callable[[object], None] | None = None
        self.rendered: RenderedPrompt[OutputT]
        self._tools: dict[str, Tool[Any, Any]] = {}
        self._opening: UserMessage
        self._watch_from = max_turns  # see _rewatch
        if limits is not None and limits.first_watch < max_turns:
            self._watch_from = limits.first_watch
        self._render()
        for skipped in self.rendered.skipped_overrides:
            self._emit(OverrideSkipped(prompt.name, self.run_id, skipped))
        self._calls = TurnCalls(executor=executor, prompt=prompt, run_id=self.run_id)
        self._hosted = HostedWaiting(prompt_name=prompt.name, run_id=self.run_id)
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

    def _attachment_limit(self) -> int | None:
        limit: int | None = getattr(
            self.adapter, "max_attachment_bytes", DEFAULT_MAX_ATTACHMENT_BYTES
        )
        return limit

    def _admit(self, attachments: object) -> tuple[tuple[Attachment, ...], str]:
        """What of a tool result's attachments the request carries (see ``admitted``)."""
        connection = self.adapter.connection
        return admitted(
            attachments, support_of(connection), self._attachment_limit(), provider=connection.name
        )

    def on_turn(self, turn: ProviderTurn) -> Action:
        """Consume the model's answer: finish, or decide what to do with its tool calls."""
        request = self._request
        if request is not None:
            turn = self.adapter.normalize_turn(turn, request)
        if len(turn.tool_calls) > 1:
            refuse_shared_ids(turn.tool_calls, self.prompt.name, self.adapter.connection.name)
        usage = turn.usage
        if usage is not NO_USAGE:
            if self.prices is not None and usage.cost is None:
                usage = priced(turn, self.prices, self.adapter.connection)
            if turn.provider is None and self._by_provider is None:
                self.usage = self.usage + usage  # the common case: _count's first branch
            else:
                self._count(usage, turn.provider or self.adapter.connection.name)
            limits = self.limits
            if limits is not None:
                last = self._last_input = usage.input_tokens
                spent = self.usage  # limits.near(spent, last), inlined on the path of every turn
                if spent.input_tokens + spent.output_tokens + last >= limits.watch:
                    self._watch_from = 0  # usage only grows: near until new limits are set
        if turn.switches:
            for event in switch_events(
                turn, self.prompt.name, self.run_id, self.turn, self.adapter
            ):
                self._emit(event)
        declared = request.hosted_tools if request is not None else ()
        if turn.hosted_items and declared:  # only the tools the request declared (policy)
            self.hosted_outputs.update(
                self.adapter.parse_hosted_outputs(turn.hosted_items, declared)
            )
        items = turn.provider_items
        self._transcript.append(
            AssistantMessage(
                turn.text,
                turn.tool_calls,
                items,
                (turn.provider or self.adapter.connection.name) if items else None,
            )
        )
        if turn.hosted_items and declared:
            self._hosted.look(turn, declared, self.adapter, self._transcript, self._emit)
        if not turn.tool_calls:
            if self._hosted:
                return self._suspend()  # the provider runs nothing until the caller answers
            if turn.finish_reason == PAUSED:
                if turn.text:
                    self._paused_text.append(turn.text)
                return self._next_request()  # the provider paused its own turn: continue it
            return self._finish(turn)
        return self._take_calls(turn)

    def _count(self, usage: Usage, provider: str) -> None:
        """Add ``usage`` to the run's, and to ``provider``'s share once it is not the only one
        (a run whose every turn came from its connection keeps no split)."""
        self.usage, self._by_provider = added(
            self.usage, self._by_provider, usage, provider, self.adapter.connection.name
        )

    @property
    def usage_by_provider(self) -> dict[str, Usage]:
        """The run's usage split by the provider that answered (or that nested runs used)."""
        return split(self.usage, self._by_provider, self.adapter.connection.name)

    def _take_calls(self, turn: ProviderTurn) -> Action:
        """Run (or refuse, or hold for confirmation) the calls of ``turn`` — unless a limit
        stops the run before them."""
        limits = self.limits
        if limits is not None and (
            self._watch_from == 0  # near a token or cost limit: _check_calls looks closer
            or len(self.tool_results) + len(turn.tool_calls) > limits.caps[1]
        ):
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

    def resume(self, confirmations: Mapping[str, Confirmation]) -> Action:
        """Continue a suspended evaluation with the caller's answers for its pending calls."""
        problems = answer_problems(self.pending_call_ids(), confirmations)
        if problems:
            raise PromptEvaluationError(
                f"confirmations do not fit the pending calls ({problems})",
                prompt_name=self.prompt.name,
                phase="confirm",
            )
        self._hosted.answer(confirmations, self._transcript, self.adapter, self._emit)
        self.session.release(self)
        to_run = self._calls.answer(confirmations, self._emit)
        if to_run:
            # the calls' contexts were built before the run waited: the runner and the kind of
            # run resuming it are this one's
            return RunCalls(
                tuple(
                    (
                        prepared,
                        dataclasses.replace(
                            context, adapter=self.adapter, asynchronous=self.asynchronous
                        ),
                    )
                    for prepared, context in to_run
                )
            )
        return self.on_outcomes(())

    def has_transcript(self) -> bool:
        """Whether the run has any turn of its own yet (a resumed run has)."""
        return bool(self._transcript)

    def pending_call_ids(self) -> tuple[str, ...]:
        return (*self._calls.pending_call_ids(), *self._hosted.call_ids())

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

    def _suspend(self) -> Action:
        taken = self.session.suspend(self)
        if taken:
            raise PromptEvaluationError(
                f"calls {', '.join(taken)} wait for an answer in another evaluation of this "
                "session; an answer must name one call, so this evaluation cannot wait too "
                "(answer the other one first, or use a session per conversation)",
                prompt_name=self.prompt.name,
                phase="confirm",
                provider=self.adapter.connection.name,
            )
        pending = (*self._calls.pending(), *self._hosted.pending())
        return self._respond(text=None, finish_reason="confirmation_required", pending=pending)

    # -- requests, rendering, output -------------------------------------------------------

    def _next_request(self) -> Action:
        if self.turn >= self._watch_from or self.deadline is not None:
            self._may_send()
        self.turn += 1
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
        self._request = request = ModelRequest(
            prompt_name=self.prompt.name,
            run_id=self.run_id,
            turn=self.turn,
            rendered=rendered,
            instructions=instructions,
            messages=messages,
            tools=tools,
            hosted_tools=hosted,
            output_schema=self._output_schema,
            output_name=self._output_name,
            deadline=self.deadline,
            tool_choice=tool_choice_for_turn(self.tool_choice, self.turn)
            if tools or hosted
            else None,
            parallel_tool_calls=self.parallel_tool_calls,
        )
        return SendRequest(request)

    def _allowed_hosted(self, hosted: tuple[HostedTool[Any], ...]) -> tuple[HostedTool[Any], ...]:
        policy = self.executor.policy
        if policy is None or not hosted:
            return hosted
        kept: list[HostedTool[Any]] = []
        for tool in hosted:
            decision = policy.check(tool)
            if decision.allowed:
                kept.append(tool)
            elif self.turn == 1:
                self._emit(
                    ToolCallDenied(self.prompt.name, self.run_id, "", tool.name, decision.reason)
                )
        return tuple(kept)

    def _render(self) -> None:
        """Render with the current overrides; the exposed tools are indexed once per render."""
        overrides = self.overrides
        if overrides is None:
            rendered = self.prompt.render(
                *self.params, visibility_overrides=self._overrides or None
            )
        else:
            rendered = self.prompt.render(
                *self.params,
                visibility_overrides=self._overrides or None,
                overrides=overrides,
                overrides_tag=self.overrides_tag,
            )
        self.rendered = rendered
        self._opening = UserMessage(rendered.text)  # the first message, without instructions
        self._tools = {tool.name: tool for tool in rendered.tools}
        if self._observed(PromptRendered):
            self._emit(PromptRendered(self.prompt.name, self.run_id, rendered))

    def _open(self, overrides: Mapping[SectionPath, SectionVisibility]) -> None:
        self._overrides.update(overrides)
        self.session.open_sections(overrides)
        self.opened.extend(overrides)
        self._render()

    def _finish(self, turn: ProviderTurn) -> Action:
        text = turn.text
        if self._paused_text:
            text = "".join([*self._paused_text, text or ""])
            self._paused_text = []
        prompt = self.prompt
        output = None
        if prompt.output_type is not None or prompt.output_validators:
            if turn.refusal is not None and prompt.output_type is not None:
                raise PromptEvaluationError(
                    f"the model refused: {turn.refusal}",
                    prompt_name=prompt.name,
                    phase="output",
                    raw_text=turn.refusal,
                )
            try:
                output = accepted_output(prompt, text)
            except NotAcceptedError as rejected:
                return self._ask_again(text, rejected.problems)
        return self._respond(
            text=text if text is not None else turn.refusal,
            output=output,
            finish_reason=turn.finish_reason,
        )

    def _ask_again(self, text: str | None, problems: tuple[str, ...]) -> Action:
        """Send the model's rejected answer back with its problems, or give up when the
        prompt's ``output_retries`` are spent."""
        self._rejected = (*self._rejected, OutputAttempt(text, problems))
        attempts = len(self._rejected)
        if attempts > self.prompt.output_retries:
            raise OutputValidationError(
                f"the final answer was not accepted after {attempts} attempt(s): "
                f"{'; '.join(problems)}",
                attempts=self._rejected,
                prompt_name=self.prompt.name,
                provider=self.adapter.connection.name,
            )
        self._emit(OutputRetried(self.prompt.name, self.run_id, self.turn, attempts, problems))
        self._transcript.append(UserMessage(retry_message(self.prompt, problems)))
        return self._next_request()

    # -- the conversation --------------------------------------------------------------------

    def keep_in(self, conversation: ConversationHandle, history_length: int) -> None:
        """Append this run's messages to ``conversation``, which held ``history_length``
        messages when the run loaded them: the caller's own messages, then the transcript."""
        self.conversation = conversation
        self._conversation_length = history_length
        # the caller's messages after the history; with none at all, the rendered prompt is the
        # first message sent, and so the conversation's
        caller = self._caller_messages[history_length:]
        self._unsaved_caller = caller if self._caller_messages else (self._opening,)

    def save_conversation(self) -> None:
        """Append to the conversation what the run added and it does not hold yet, up to where
        the transcript is whole (every call with its result; a turn still waiting for hosted
        approvals is left for the resumed run, which changes it): called by the drivers
        whenever the run returns, waits, stops or is left, so each message lands once."""
        conversation = self.conversation
        if conversation is None:
            return
        transcript = self._transcript
        whole = whole_until(transcript, self._saved)
        if self._hosted and whole == len(transcript) and whole > self._saved:
            whole -= 1  # the turn waiting for hosted approvals gets their answers on resume
        new = (*self._unsaved_caller, *transcript[self._saved : whole])
        if not new:
            return
        self._conversation_length = conversation.append(new, expected=self._conversation_length)
        self._unsaved_caller = ()
        self._saved = whole

    # -- limits ----------------------------------------------------------------------------

    def _may_send(self) -> None:
        """Raise if the run may not send another request: ``max_turns`` reached, the deadline
        passed, or a limit the request would cross (then the run stops, to be resumed)."""
        if self.turn >= self.max_turns:
            raise PromptEvaluationError(
                f"the model kept calling tools for {self.max_turns} turns (max_turns); raise "
                "max_turns or check the tools' results",
                prompt_name=self.prompt.name,
                phase="loop",
            )
        if self.deadline is not None and self.deadline.expired():
            raise PromptEvaluationError(
                "the evaluation deadline passed", prompt_name=self.prompt.name, phase="deadline"
            )
        limits = self.limits
        if limits is None:
            return
        # with a history hook the next request may read less than the last did: no input is
        # taken as certain
        last = self._last_input if self.history is None else 0
        crossing = limits.before_request(self.turn, self.usage, last)
        if crossing is not None:
            self._stop(crossing, self._next_request)

    def set_limits(self, limits: UsageLimits | None) -> None:
        """Hold the run to ``limits`` from its next check on (a resumed run's new limits)."""
        self.limits = limits
        self._watch_from = self.max_turns
        if limits is not None:
            self._rewatch()

    def _rewatch(self) -> None:
        """Set the request count from which ``_next_request`` looks closer: ``max_turns`` or
        an earlier request limit — or at once (0) while the run's usage is near a token or cost
        limit, which ``_take_calls`` reads too. Called whenever the limits or the usage change,
        so a run far from its limits pays no check per request."""
        limits = self.limits
        assert limits is not None
        if limits.near(self.usage, self._last_input):
            self._watch_from = 0
        else:
            self._watch_from = min(self.max_turns, limits.caps[0])

    def _check_calls(self, turn: ProviderTurn) -> None:
        """Stop before the calls of ``turn`` if running them, or the answer asking for them,
        crosses a limit."""
        limits = self.limits
        assert limits is not None
        crossing = limits.before_calls(len(self.tool_results), len(turn.tool_calls), self.usage)
        if crossing is not None:
            self._stop(crossing, lambda: self._take_calls(turn))

    def _stop(self, crossing: Crossing, then: Callable[[], Action]) -> NoReturn:
        """Stop the run at a limit, keeping it in its session to be resumed with ``then``."""
        self._stopped = then
        self.session.keep_stopped(self.run_id, self)
        raise UsageLimitExceeded(
            f"the run reached its {crossing.limit} limit ({crossing.reached:g} of at most "
            f"{crossing.maximum:g}); resume it with resume={self.run_id!r}, the same session "
            "and a higher limit",
            limit=crossing.limit,
            maximum=crossing.maximum,
            reached=crossing.reached,
            usage=self.usage,
            session=self.session,
            run_id=self.run_id,
            prompt_name=self.prompt.name,
        )

    def resume_stopped(self, limits: UsageLimits | None) -> Action:
        """Continue where a limit stopped the run, under ``limits`` (checked again)."""
        then = self._stopped
        if then is None:
            raise PromptEvaluationError(
                f"run {self.run_id!r} was not stopped by a limit",
                prompt_name=self.prompt.name,
                phase="limits",
            )
        self._stopped = None
        self.session.release_stopped(self.run_id)
        self.set_limits(limits)
        return then()

    def _respond(
        self,
        *,
        text: str | None,
        finish_reason: str,
        output: Any = None,
        pending: tuple[PendingConfirmation, ...] = (),
        expansion: Mapping[SectionPath, SectionVisibility] | None = None,
    ) -> Finished[OutputT]:
        response: PromptResponse[OutputT] = PromptResponse(
            prompt_name=self.prompt.name,
            run_id=self.run_id,
            session=self.session,
            output=output,
            text=text,
            tool_results=tuple(self.tool_results),
            hosted_outputs=dict(self.hosted_outputs),
            usage=self.usage,
            pending_confirmations=pending,
            expansion=expansion,
            finish_reason=finish_reason,
            turns=self.turn,
            messages=tuple(self._transcript),
            usage_by_provider=self.usage_by_provider,
        )
        self._emit(PromptExecuted(self.prompt.name, self.run_id, response, tuple(self.opened)))
        return Finished(response)

    # -- helpers ---------------------------------------------------------------------------

    def _context(self, call_id: str) -> ToolContext:
        return ToolContext(
            prompt=self.prompt,
            rendered_prompt=self.rendered,
            adapter=self.adapter,
            session=self.session,
            event_bus=self.bus,
            run_id=self.run_id,
            turn=self.turn,
            call_id=call_id,
            deadline=self.deadline,
            asynchronous=self.asynchronous,
        )

    def _observed(self, event_type: type[Any]) -> bool:
        """Whether anyone would see an event of ``event_type``: events nobody records or
        subscribes to are not built at all."""
        return (
            self.observer is not None
            or self.session.records(event_type)
            or self.bus.wants(event_type)
        )

    def publish(self, event: object) -> None:
        """Publish ``event`` as the run's own: to its session, its bus and its stream."""
        self._emit(event)

    def _emit(self, event: object) -> None:
        self.session.apply(event)
        self.bus.publish(event)
        observer = self.observer
        if observer is not None:
            observer(event)
