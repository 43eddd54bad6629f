"""``ChatService``: one chat request, from the stored conversation to the stored reply.

The agent runs server-side, in one place (:meth:`ChatService._run_agent`). A conversation is
the stored transcript; each request appends to it, so nothing lives in memory between requests
and any process (or a restarted one) can take the next request.

**Confirmations across restarts.** When the model calls a destructive tool, affordance
suspends the run and returns ``pending_confirmations``; the suspended run itself lives only in
that request's in-memory ``Session``. So the service stores what is needed to finish the turn
anywhere: the transcript (ending with the model's turn that made the calls), the pending calls
(id, name, validated arguments), and the results of that turn's other calls, which already ran.
When the answers come — in this process or after a restart — the service finishes the turn
itself: approved calls run through the prompt's own ``Tool`` with the adapter's
``ToolExecutor`` (same validation, timeout, retries, error mapping and metadata log), denied
ones get a "declined" result, every call of the turn gets exactly one result in call order,
and the evaluation continues with ``messages=`` the stored transcript plus those results. One
path serves both cases, so it is the one every confirmation test exercises.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Literal

from affordance import (
    Evaluator,
    EventBus,
    PromptEvaluationError,
    PromptResponse,
    PromptTemplate,
    Session,
    Tool,
    ToolContext,
    ToolInvoked,
)
from affordance.adapters import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from affordance.clock import Deadline
from taskchat.conversations import (
    Conversation,
    ConversationConflictError,
    ConversationStore,
    PendingCall,
    PendingTurn,
)
from taskchat.prompt import AssistantContext

__all__ = [
    "Answer",
    "ChatError",
    "ChatEvent",
    "ChatReply",
    "ChatService",
    "ToolFinished",
    "ToolOutcome",
]

logger = logging.getLogger("taskchat.chat")

Answer = Literal["approve", "deny"]


# -- results and events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """One tool call of a chat request: ``message`` for people, ``content`` for the model."""

    call_id: str
    name: str
    success: bool
    message: str
    content: str


@dataclass(frozen=True, slots=True)
class ChatReply:
    conversation_id: str
    reply: str
    tool_results: tuple[ToolOutcome, ...]
    pending_confirmations: tuple[PendingCall, ...]


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """Published as each tool call of the request finishes (the streaming endpoint's events)."""

    outcome: ToolOutcome


ChatEvent = ToolFinished
ChatListener = Callable[[ChatEvent], None]


# -- errors ------------------------------------------------------------------------------------


class ChatError(Exception):
    """A request the service cannot carry out; ``status`` and ``code`` are for the HTTP answer."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class ConversationNotFoundError(ChatError):
    status, code = 404, "conversation_not_found"


class ConfirmationRequiredError(ChatError):
    status, code = 409, "confirmation_required"


class ConfirmationMismatchError(ChatError):
    status, code = 409, "confirmation_mismatch"


class NothingToConfirmError(ChatError):
    status, code = 409, "nothing_to_confirm"


class ConversationBusyError(ChatError):
    status, code = 409, "conversation_busy"


class InvalidChatRequestError(ChatError):
    status, code = 422, "invalid_request"


class ModelFailureError(ChatError):
    status, code = 502, "model_error"


class ModelTimeoutError(ChatError):
    status, code = 504, "model_timeout"


# -- the service -------------------------------------------------------------------------------


def _utc_today() -> date:
    return datetime.now(timezone.utc).date()


class ChatService:
    """Runs chat requests against one adapter and prompt, persisting every conversation."""

    def __init__(
        self,
        *,
        adapter: Evaluator,
        prompt: PromptTemplate[None],
        conversations: ConversationStore,
        today: Callable[[], date] = _utc_today,
        deadline: float | None = 60.0,
    ) -> None:
        self._adapter = adapter
        self._prompt = prompt
        self._conversations = conversations
        self._today = today
        self._deadline = deadline
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def tools(self) -> tuple[Tool[Any, Any], ...]:
        """The tools the model is offered, in order."""
        return self._prompt.render(self._context()).tools

    async def conversation(self, conversation_id: str) -> Conversation:
        found = await asyncio.to_thread(self._conversations.load, conversation_id)
        if found is None:
            raise ConversationNotFoundError(f"there is no conversation {conversation_id!r}")
        return found

    async def chat(
        self,
        *,
        conversation_id: str | None,
        message: str,
        confirmations: Mapping[str, Answer],
        listener: ChatListener | None = None,
    ) -> ChatReply:
        """Take one user message, or the answers to pending confirmations, and reply."""
        if conversation_id is None:
            return await self._chat(self._conversations.new(), message, confirmations, listener)
        lock = self._locks.setdefault(conversation_id, asyncio.Lock())
        async with lock:  # one request at a time per conversation, within this process
            conversation = await self.conversation(conversation_id)
            return await self._chat(conversation, message, confirmations, listener)

    async def _chat(
        self,
        conversation: Conversation,
        message: str,
        confirmations: Mapping[str, Answer],
        listener: ChatListener | None,
    ) -> ChatReply:
        started = time.perf_counter()
        outcomes: list[ToolOutcome] = []

        def record(outcome: ToolOutcome) -> None:
            outcomes.append(outcome)
            if listener is not None:
                listener(ToolFinished(outcome))

        context = self._context()
        if conversation.pending is not None:
            opening: tuple[Message, ...] = await self._finish_pending_turn(
                conversation, conversation.pending, confirmations, message, context, record
            )
        else:
            if confirmations:
                raise NothingToConfirmError(
                    "nothing in this conversation waits for confirmation",
                    answered=sorted(confirmations),
                )
            if not message.strip():
                raise InvalidChatRequestError("message must not be empty")
            opening = (UserMessage(message),)
        try:
            response = await self._run_agent(context, (*conversation.messages, *opening), record)
        except Exception:
            if conversation.pending is not None:
                # The confirmed calls ran: keep their results, so they never run twice.
                await self._save(conversation, opening, None)
            raise
        pending = _pending_turn(response, outcomes)
        await self._save(conversation, (*opening, *response.messages), pending)
        reply = ChatReply(
            conversation_id=conversation.id,
            reply=_reply_text(response, pending),
            tool_results=tuple(outcomes),
            pending_confirmations=pending.calls if pending is not None else (),
        )
        logger.info(
            "chat conversation=%s outcome=%s tool_calls=%d turns=%d duration_ms=%.1f",
            conversation.id,
            "confirmation_required" if pending else "replied",
            len(outcomes),
            response.turns,
            (time.perf_counter() - started) * 1000,
            extra={
                "taskchat_conversation_id": conversation.id,
                "taskchat_outcome": "confirmation_required" if pending else "replied",
                "taskchat_tool_calls": len(outcomes),
                "taskchat_failed_calls": sum(not o.success for o in outcomes),
                "taskchat_turns": response.turns,
            },
        )
        return reply

    async def _run_agent(
        self,
        context: AssistantContext,
        messages: Sequence[Message],
        record: Callable[[ToolOutcome], None],
    ) -> PromptResponse[None]:
        """The one place the model runs. The streaming endpoint will swap ``aevaluate`` for
        ``astream`` here and pass the text deltas on to the listener."""
        bus = EventBus()
        bus.subscribe(ToolInvoked, lambda event: record(_outcome(event)))
        try:
            return await self._adapter.aevaluate(
                self._prompt, context, bus=bus, messages=messages, deadline=self._deadline
            )
        except PromptEvaluationError as error:
            if error.phase == "deadline":
                raise ModelTimeoutError("the assistant did not finish in time") from error
            raise ModelFailureError(f"the model failed: {error}") from error

    async def _finish_pending_turn(
        self,
        conversation: Conversation,
        pending: PendingTurn,
        confirmations: Mapping[str, Answer],
        reason: str,
        context: AssistantContext,
        record: Callable[[ToolOutcome], None],
    ) -> tuple[ToolResultMessage, ...]:
        """Run or decline the confirmed calls; every call of the turn gets one result."""
        waiting = {call.call_id for call in pending.calls}
        pending_json = [_pending_json(call) for call in pending.calls]
        if not confirmations:
            raise ConfirmationRequiredError(
                "answer the pending confirmations first", pending_confirmations=pending_json
            )
        if set(confirmations) != waiting:
            raise ConfirmationMismatchError(
                "confirmations must answer exactly the pending calls",
                pending_confirmations=pending_json,
                answered=sorted(confirmations),
            )
        if reason.strip() and "deny" not in confirmations.values():
            raise InvalidChatRequestError(
                "with confirmations, message is the reason for a denial; nothing was denied"
            )
        turn = conversation.messages[-1] if conversation.messages else None
        if not isinstance(turn, AssistantMessage):
            raise TypeError(f"conversation {conversation.id} has pending calls but no model turn")
        rendered = self._prompt.render(context)
        tools = {tool.name: tool for tool in rendered.tools}
        settled = {result.call_id: result for result in pending.settled}
        results: list[ToolResultMessage] = []
        for call in turn.tool_calls:
            if call.id in settled:
                results.append(settled[call.id])
                continue
            if confirmations.get(call.id) == "approve":
                outcome = await self._run_confirmed(call, tools, rendered, pending)
            else:
                why = f" Reason: {reason.strip()}" if reason.strip() else ""
                content = f"The user declined to run {call.name!r}; it was not run.{why}"
                outcome = ToolOutcome(call.id, call.name, False, content, content)
            record(outcome)
            results.append(
                ToolResultMessage(call.id, call.name, outcome.content, not outcome.success)
            )
        return tuple(results)

    async def _run_confirmed(
        self,
        call: ToolCall,
        tools: Mapping[str, Tool[Any, Any]],
        rendered: Any,
        pending: PendingTurn,
    ) -> ToolOutcome:
        executor = self._adapter.executor
        prepared = executor.prepare(call, tools, confirmed=True)
        context = ToolContext(
            prompt=self._prompt,
            rendered_prompt=rendered,
            adapter=self._adapter,
            session=Session(),
            event_bus=EventBus(),
            run_id=pending.run_id,
            turn=pending.turn,
            call_id=call.id,
            deadline=Deadline.after(self._deadline) if self._deadline is not None else None,
        )
        outcome = await executor.arun(prepared, context)
        executor.finish(outcome, run_id=pending.run_id, turn=pending.turn)
        result = outcome.result
        return ToolOutcome(call.id, call.name, result.success, result.message, result.model_text())

    async def _save(
        self,
        conversation: Conversation,
        appended: Sequence[Message],
        pending: PendingTurn | None,
    ) -> None:
        try:
            await asyncio.to_thread(self._conversations.save, conversation, appended, pending)
        except ConversationConflictError:
            raise ConversationBusyError(
                "another request changed this conversation at the same time; send it again"
            ) from None

    def _context(self) -> AssistantContext:
        return AssistantContext(today=self._today().isoformat())


def _outcome(event: ToolInvoked) -> ToolOutcome:
    result = event.result
    return ToolOutcome(
        event.call_id,
        event.name,
        result.success,
        result.message,
        result.model_text(event.rendered_output),
    )


def _pending_turn(
    response: PromptResponse[None], outcomes: Sequence[ToolOutcome]
) -> PendingTurn | None:
    """What must be stored to finish a suspended turn later, anywhere."""
    if not response.pending_confirmations:
        return None
    turn = response.messages[-1]
    if not isinstance(turn, AssistantMessage):
        raise TypeError("a suspended evaluation's transcript must end with the model's turn")
    waiting = {p.call_id for p in response.pending_confirmations}
    in_turn = {call.id for call in turn.tool_calls}
    settled = tuple(
        ToolResultMessage(o.call_id, o.name, o.content, not o.success)
        for o in outcomes
        if o.call_id in in_turn and o.call_id not in waiting
    )
    return PendingTurn(
        run_id=response.run_id,
        turn=response.turns,
        calls=tuple(
            PendingCall(p.call_id, p.name, dict(p.arguments))
            for p in response.pending_confirmations
        ),
        settled=settled,
    )


def _reply_text(response: PromptResponse[None], pending: PendingTurn | None) -> str:
    if response.text:
        return response.text
    if pending is not None:
        turn = response.messages[-1]
        if isinstance(turn, AssistantMessage) and turn.text:
            return turn.text
        names = ", ".join(call.name for call in pending.calls)
        return f"This needs your confirmation: {names}."
    return ""


def _pending_json(call: PendingCall) -> dict[str, Any]:
    return {"call_id": call.call_id, "name": call.name, "arguments": dict(call.arguments)}
