"""The evaluation loop, written once as a sans-IO state machine.

:class:`Evaluation` never sends a request or runs a handler itself. It returns *actions* —
:class:`SendRequest`, :class:`RunCalls`, :class:`Finished` — and the drivers in
``affordance.runtime.drivers`` perform them (sync or async) and feed the results back through
:meth:`Evaluation.on_turn` and :meth:`Evaluation.on_outcomes`. Every decision — tool failure
semantics, terminal tools, confirmations, disclosure, structured output, turn and deadline
bounds — lives here, so both drivers and every provider share it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._ids import new_id
from affordance.clock import Deadline
from affordance.errors import PromptEvaluationError
from affordance.prompt.disclosure import disclosure_request, requested_overrides
from affordance.prompt.paths import SectionPath
from affordance.prompt.rendered import RenderedPrompt
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime import failures
from affordance.runtime.actions import Action, Finished, RunCalls, SendRequest
from affordance.runtime.confirmation import (
    Confirmation,
    PendingConfirmation,
    answer_problems,
    arguments_of,
    declined_result,
)
from affordance.runtime.context import ToolContext
from affordance.runtime.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    PromptExecuted,
    PromptRendered,
    ToolCallDenied,
    ToolInvoked,
)
from affordance.runtime.executor import CallOutcome, PreparedCall, ToolExecutor
from affordance.runtime.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.output import output_name, output_schema, parse_output
from affordance.runtime.response import PromptResponse, ToolCallResult
from affordance.runtime.session import Session
from affordance.runtime.turn import (
    NO_USAGE,
    PAUSED,
    ModelRequest,
    ProviderTurn,
    ToolChoice,
    Usage,
    tool_choice_for_turn,
)
from affordance.tools.hosted import HostedTool, HostedToolOutput
from affordance.tools.tool import Tool

if TYPE_CHECKING:
    from affordance.runtime.evaluator import Evaluator

__all__ = ["Action", "Evaluation", "Finished", "RunCalls", "SendRequest"]

OutputT = TypeVar("OutputT")


class _Slot:
    """The result position of one call of the current turn."""

    __slots__ = ("content", "context", "outcome", "pending")

    def __init__(self) -> None:
        self.outcome: CallOutcome | None = None
        self.pending: PreparedCall | None = None
        self.context: ToolContext | None = None
        self.content: str | None = None  # the tool message, set once the outcome is published


class Evaluation(Generic[OutputT]):
    """One evaluation of a prompt: its transcript, turn count and the current turn's calls."""

    def __init__(
        self,
        *,
        prompt: PromptTemplate[OutputT],
        params: Sequence[Any],
        adapter: Evaluator,
        session: Session,
        bus: EventBus,
        executor: ToolExecutor,
        messages: Sequence[Message] = (),
        visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
        max_turns: int = 16,
        max_expansions: int = 0,
        deadline: Deadline | None = None,
        run_id: str | None = None,
        tool_choice: ToolChoice | None = None,
        parallel_tool_calls: bool | None = None,
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
        self._slots: list[_Slot] = []
        self._slot_of: dict[int, _Slot] = {}
        self._request: ModelRequest | None = None
        self._paused_text: list[str] = []
        self.observer: Callable[[object], None] | None = None
        self._terminal: PreparedCall | None = None
        self.rendered: RenderedPrompt[OutputT]
        self._tools: dict[str, Tool[Any, Any]] = {}
        self._opening: UserMessage
        self._render()
        self._output_schema = output_schema(prompt.output_type)
        self._output_name = output_name(prompt.output_type)

    # -- driving ---------------------------------------------------------------------------

    def start(self) -> Action:
        return self._next_request()

    def on_turn(self, turn: ProviderTurn) -> Action:
        """Consume the model's answer: finish, or decide what to do with its tool calls."""
        request = self._request
        if request is not None:
            turn = self.adapter.normalize_turn(turn, request)
        if len(turn.tool_calls) > 1:
            self._refuse_shared_ids(turn.tool_calls)
        self.usage = self.usage + turn.usage
        declared = request.hosted_tools if request is not None else ()
        if turn.hosted_items and declared:  # only the tools the request declared (policy)
            self.hosted_outputs.update(
                self.adapter.parse_hosted_outputs(turn.hosted_items, declared)
            )
        self._transcript.append(AssistantMessage(turn.text, turn.tool_calls, turn.provider_items))
        if not turn.tool_calls:
            if turn.finish_reason == PAUSED:
                if turn.text:
                    self._paused_text.append(turn.text)
                return self._next_request()  # the provider paused its own turn: continue it
            return self._finish(turn)
        tools = self._tools
        self._slots = []
        self._slot_of = {}
        self._terminal = None
        to_run: list[tuple[PreparedCall, ToolContext]] = []
        for call in turn.tool_calls:
            slot = _Slot()
            self._slots.append(slot)
            self._slot_of[id(call)] = slot
            if self._terminal is not None:
                skipped = failures.skipped_after_terminal(call.name, self._terminal.call.name)
                slot.outcome = CallOutcome(PreparedCall(call, tools.get(call.name)), skipped)
                continue
            prepared = self.executor.prepare(call, tools)
            if prepared.result is not None:
                slot.outcome = CallOutcome(prepared, prepared.result)
                if prepared.denial is not None:
                    self._emit(
                        ToolCallDenied(
                            self.prompt.name, self.run_id, call.id, call.name, prepared.denial
                        )
                    )
                continue
            slot.context = self._context(call.id)
            if prepared.needs_confirmation:
                slot.pending = prepared
                self._emit(
                    ConfirmationRequested(
                        self.prompt.name, self.run_id, call.id, call.name, prepared.params
                    )
                )
                continue
            if prepared.tool is not None and prepared.tool.terminal:
                self._terminal = prepared
            to_run.append((prepared, slot.context))
        if to_run:
            return RunCalls(tuple(to_run))
        return self.on_outcomes(())

    def on_outcomes(self, outcomes: Sequence[CallOutcome]) -> Action:
        """Record the outcomes of a :class:`RunCalls`; then continue, suspend or finish."""
        for outcome in outcomes:
            slot = self._slot_of.get(id(outcome.prepared.call))
            if slot is None:
                raise RuntimeError("on_outcomes got an outcome for a call of another turn")
            slot.outcome = outcome
        waiting = False
        for slot in self._slots:
            if slot.pending is not None:
                waiting = True
            elif slot.outcome is None:
                raise RuntimeError("on_outcomes is missing the outcome of a call")
        self._record_new()
        return self._suspend() if waiting else self._close_turn()

    def resume(self, confirmations: Mapping[str, Confirmation]) -> Action:
        """Continue a suspended evaluation with the caller's answers for its pending calls."""
        pending = [slot for slot in self._slots if slot.pending is not None]
        problems = answer_problems(self.pending_call_ids(), confirmations)
        if problems:
            raise PromptEvaluationError(
                f"confirmations do not fit the pending calls ({problems})",
                prompt_name=self.prompt.name,
                phase="confirm",
            )
        self.session.release(self)
        tools = self._tools
        to_run: list[tuple[PreparedCall, ToolContext]] = []
        for slot in pending:
            prepared, context = slot.pending, slot.context
            assert prepared is not None
            assert context is not None
            slot.pending = None
            call = prepared.call
            answer = confirmations[call.id]
            self._emit(
                ConfirmationResolved(
                    self.prompt.name,
                    self.run_id,
                    call.id,
                    call.name,
                    answer.approved,
                    answer.message,
                )
            )
            if not answer.approved:
                slot.outcome = CallOutcome(prepared, declined_result(call.name, answer.message))
                continue
            confirmed = self.executor.prepare(call, tools, confirmed=True)
            if confirmed.result is not None:
                slot.outcome = CallOutcome(confirmed, confirmed.result)
            else:
                to_run.append((confirmed, context))
        if to_run:
            return RunCalls(tuple(to_run))
        return self.on_outcomes(())

    def pending_call_ids(self) -> tuple[str, ...]:
        return tuple(s.pending.call.id for s in self._slots if s.pending is not None)

    def _refuse_shared_ids(self, calls: Sequence[ToolCall]) -> None:
        """A call id is the unit of approval: an answer names one call by its id, so a turn
        in which two calls share an id is refused before any of them runs."""
        seen: set[str] = set()
        for call in calls:
            if call.id in seen:
                raise PromptEvaluationError(
                    f"the model's turn has more than one tool call with the id {call.id!r}; "
                    "each call needs its own id, so none of them was run",
                    prompt_name=self.prompt.name,
                    phase="response",
                    provider=self.adapter.connection.name,
                )
            seen.add(call.id)

    # -- turn bookkeeping ------------------------------------------------------------------

    def _record_new(self) -> None:
        """Finish, log and publish each outcome once, in call order."""
        for slot in self._slots:
            if slot.outcome is not None and slot.content is None:
                slot.content = self._publish_outcome(slot.outcome)

    def _publish_outcome(self, outcome: CallOutcome) -> str:
        """Log the outcome, publish its ``ToolInvoked``, and return the tool message text."""
        prepared = outcome.prepared
        self.executor.finish(outcome, run_id=self.run_id, turn=self.turn)
        result = outcome.result
        rendered = outcome.rendered if outcome.rendered is not None else result.render()
        self._emit(
            ToolInvoked(
                prompt_name=self.prompt.name,
                run_id=self.run_id,
                turn=self.turn,
                call_id=prepared.call.id,
                name=prepared.call.name,
                params=prepared.params,
                result=result,
                rendered_output=rendered,
                duration=outcome.duration,
                attempts=outcome.attempts,
                cached=prepared.cached,
                disclosure=disclosure_request(
                    prepared.call.name, prepared.params, self.prompt, self.rendered
                ),
            )
        )
        return result.model_text(rendered)

    def _close_turn(self) -> Action:
        terminal_result = None
        for slot in self._slots:
            outcome, content = slot.outcome, slot.content
            assert outcome is not None
            assert content is not None
            prepared, result = outcome.prepared, outcome.result
            self._transcript.append(
                ToolResultMessage(prepared.call.id, prepared.call.name, content, not result.success)
            )
            self.tool_results.append(
                ToolCallResult(prepared.call, result, prepared.params, self.turn)
            )
            if self._terminal is not None and prepared is self._terminal:
                terminal_result = result
        self._slots = []
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
        pending = tuple(
            PendingConfirmation(
                s.pending.call.id,
                s.pending.call.name,
                s.pending.params,
                arguments_of(s.pending.params),
            )
            for s in self._slots
            if s.pending is not None
        )
        return self._respond(text=None, finish_reason="confirmation_required", pending=pending)

    # -- requests, rendering, output -------------------------------------------------------

    def _next_request(self) -> Action:
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
        self.turn += 1
        rendered = self.rendered
        if self._caller_messages:
            instructions: str | None = rendered.text
            messages: tuple[Message, ...] = (*self._caller_messages, *self._transcript)
        else:
            instructions = None
            messages = (self._opening, *self._transcript)
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
        rendered = self.prompt.render(*self.params, visibility_overrides=self._overrides or None)
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
        output = None
        if self.prompt.output_type is not None:
            if turn.refusal is not None:
                raise PromptEvaluationError(
                    f"the model refused: {turn.refusal}",
                    prompt_name=self.prompt.name,
                    phase="output",
                    raw_text=turn.refusal,
                )
            output = parse_output(text, self.prompt.output_type, self.prompt.name)
        return self._respond(
            text=text if text is not None else turn.refusal,
            output=output,
            finish_reason=turn.finish_reason,
        )

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
        )

    def _observed(self, event_type: type[Any]) -> bool:
        """Whether anyone would see an event of ``event_type``: events nobody records or
        subscribes to are not built at all."""
        return (
            self.observer is not None
            or self.session.records(event_type)
            or self.bus.wants(event_type)
        )

    def _emit(self, event: object) -> None:
        self.session.apply(event)
        self.bus.publish(event)
        observer = self.observer
        if observer is not None:
            observer(event)
