"""``ChatService``: one chat request, from the stored conversation to the stored reply.

The agent runs server-side, in one place (:meth:`ChatService._run_agent`), always streamed
(``adapter.astream``): a request's listener hears every event as it happens — the streaming
endpoint sends them on, the plain one passes no listener — and both get the same
:class:`ChatReply` at the end. A conversation is the stored transcript; each request appends to
it, so nothing lives in memory between requests and any process (or a restarted one) can take
the next request.

**Confirmations across restarts.** A destructive call suspends the run; the service stores the
suspended turn and finishes it when the answers come, in this process or another
(``suspended_turns.py``), then continues the evaluation with ``messages=`` the stored
transcript plus the turn's results. That is a new run, counting its turns from 1; its events
are numbered after the answered turn's, so the turns a client hears only go up.

**A request that does not finish** — the model fails, the deadline passes, or the task is
cancelled because the streaming client went away — stores nothing of its run, so the
conversation is exactly what it was; except that confirmed calls, once started, run to the end
and their results are stored with the pending turn cleared, so an approved call never runs
twice.

**Durable runs** (``--temporal``, a :class:`~taskchat.durable.DurableAgent`): the same requests,
but the run is a Temporal workflow (:class:`~taskchat.chat_durable.DurableRuns`); a run waiting
for confirmation is stored as a durable pending turn, answered by signalling it. The listener
hears the run's events once it has settled, not as they happen.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

from affordance import (
    Evaluator,
    PromptEvaluationError,
    PromptResponse,
    PromptTemplate,
    RunFinished,
    Tool,
    ToolCallFinished,
    TurnFinished,
)
from affordance.adapters import Message, ToolResultMessage, UserMessage
from taskchat.chat_durable import DurableRuns
from taskchat.chat_errors import (
    ChatError,
    ConversationBusyError,
    ConversationNotFoundError,
    DurableRunUnavailableError,
    InvalidChatRequestError,
    ModelFailureError,
    ModelTimeoutError,
    NothingToConfirmError,
)
from taskchat.chat_replies import (
    ChatEvent,
    ChatListener,
    ChatReply,
    ChatStarted,
    ToolOutcome,
    renumbered,
    reply_text,
    tool_outcome,
)
from taskchat.conversations import (
    Conversation,
    ConversationConflictError,
    ConversationStore,
    PendingTurn,
)
from taskchat.prompt import AssistantContext
from taskchat.settled_runs import SettledRun, uninterrupted
from taskchat.suspended_turns import Answer, TurnFinisher, check_answers, suspended_turn

if TYPE_CHECKING:  # the durable module imports temporalio: only with --temporal
    from taskchat.durable import DurableAgent

__all__ = [
    "Answer",
    "ChatEvent",
    "ChatListener",
    "ChatReply",
    "ChatService",
    "ChatStarted",
    "ToolOutcome",
]

logger = logging.getLogger("taskchat.chat")


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
        durable: DurableAgent | None = None,
    ) -> None:
        """``durable``: run the agent on Temporal (``deadline`` then bounds how long a request
        waits for its run to reply or to wait for confirmations)."""
        self._adapter = adapter
        self._prompt = prompt
        self._conversations = conversations
        self._today = today
        self._deadline = deadline
        self._durable = (
            DurableRuns(durable, prompt_name=prompt.name, deadline=deadline)
            if durable is not None
            else None
        )
        self._finisher = TurnFinisher(adapter=adapter, prompt=prompt, deadline=deadline)
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
        """Take one user message, or the answers to pending confirmations, and reply.

        A :class:`ChatError` raised before ``ChatStarted`` reaches the listener means the
        request was refused and nothing was done.
        """
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
        if conversation.pending is not None:
            check_answers(conversation.pending, confirmations, message)
            if conversation.pending.durable and self._durable is None:
                raise DurableRunUnavailableError(
                    "this conversation's run waits in Temporal; answer it through a server "
                    "started with --temporal"
                )
        elif confirmations:
            raise NothingToConfirmError(
                "nothing in this conversation waits for confirmation",
                answered=sorted(confirmations),
            )
        elif not message.strip():
            raise InvalidChatRequestError("body.message", "must not be empty")

        started = time.perf_counter()
        outcomes: list[ToolOutcome] = []
        turns = 0

        def heard(event: ChatEvent) -> None:
            nonlocal turns
            if isinstance(event, ToolCallFinished):
                outcomes.append(tool_outcome(event))
            elif isinstance(event, TurnFinished):
                turns += 1
            if listener is not None:
                listener(event)

        heard(ChatStarted(conversation.id, resumed=conversation.pending is not None))
        try:
            reply = await self._answer(conversation, message, confirmations, heard, outcomes)
        except BaseException as error:
            _log(conversation.id, _failure(error), outcomes, turns, started)
            raise
        waiting = "confirmation_required" if reply.pending_confirmations else "replied"
        _log(conversation.id, waiting, outcomes, turns, started)
        return reply

    async def _answer(
        self,
        conversation: Conversation,
        message: str,
        confirmations: Mapping[str, Answer],
        heard: ChatListener,
        outcomes: Sequence[ToolOutcome],
    ) -> ChatReply:
        context = self._context()
        if conversation.pending is not None and conversation.pending.durable:
            assert self._durable is not None  # _chat refuses the request otherwise
            settled = await self._durable.resume(
                conversation.pending, message, confirmations, heard
            )
            await uninterrupted(self._save(conversation, settled.messages, settled.pending))
            return self._reply(conversation, settled, outcomes)
        finishing: asyncio.Task[tuple[ToolResultMessage, ...]] | None = None
        if conversation.pending is not None:
            # A task of its own, so that confirmed calls run to the end whatever happens here.
            finishing = asyncio.ensure_future(
                self._finisher.finish(conversation, confirmations, message, context, heard)
            )
        # The run that continues an answered turn numbers its turns after that turn's.
        before = conversation.pending.shown_turn if conversation.pending is not None else 0

        def heard_in_run(event: ChatEvent) -> None:
            heard(renumbered(event, before))

        try:
            opening: tuple[Message, ...] = (UserMessage(message),)
            if finishing is not None:
                opening = await asyncio.shield(finishing)
            messages = (*conversation.messages, *opening)
            if self._durable is None:
                response = await self._run_agent(context, messages, heard_in_run)
                results = [o.as_message() for o in outcomes]
                pending = suspended_turn(response, results, turns_before=before)
                settled = SettledRun(response.messages, pending, reply_text(response, pending))
            else:
                settled = await self._durable.run(conversation.id, context, messages, heard_in_run)
        except BaseException:
            if finishing is not None:
                # The confirmed calls ran (or finish now): keep their results, so they never
                # run twice.
                await uninterrupted(self._keep_finished_turn(conversation, finishing))
            raise
        appended = (*opening, *settled.messages)
        await uninterrupted(self._save(conversation, appended, settled.pending))
        return self._reply(conversation, settled, outcomes)

    async def _run_agent(
        self,
        context: AssistantContext,
        messages: Sequence[Message],
        heard: ChatListener,
    ) -> PromptResponse[None]:
        """The one place the model runs in this process: streamed, each event passed on as it
        happens.

        Cancelling the calling task leaves the ``async with``, which closes the provider's
        stream and cancels the tool calls in flight."""
        try:
            async with self._adapter.astream(
                self._prompt, context, messages=messages, deadline=self._deadline
            ) as events:
                async for event in events:
                    if not isinstance(event, RunFinished):
                        heard(event)
        except PromptEvaluationError as error:
            if error.phase == "deadline":
                raise ModelTimeoutError("the assistant did not finish in time") from error
            raise ModelFailureError(f"the model failed: {error}") from error
        if events.response is None:
            raise ModelFailureError("the model's stream ended without a response")
        return events.response

    def _reply(
        self, conversation: Conversation, settled: SettledRun, outcomes: Sequence[ToolOutcome]
    ) -> ChatReply:
        return ChatReply(
            conversation_id=conversation.id,
            reply=settled.reply,
            tool_results=tuple(outcomes),
            pending_confirmations=settled.pending.calls if settled.pending is not None else (),
        )

    async def _keep_finished_turn(
        self,
        conversation: Conversation,
        finishing: asyncio.Task[tuple[ToolResultMessage, ...]],
    ) -> None:
        """Store the results of a finished suspended turn and clear it; the model's answer to
        them never came."""
        await self._save(conversation, await finishing, None)

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


# -- the request log ---------------------------------------------------------------------------


def _failure(error: BaseException) -> str:
    """How a request ended, for the log: an error code, never the error's text."""
    if isinstance(error, asyncio.CancelledError):
        return "interrupted"
    if isinstance(error, ChatError):
        return error.code
    return "error"


def _log(
    conversation_id: str,
    outcome: str,
    outcomes: Sequence[ToolOutcome],
    turns: int,
    started: float,
) -> None:
    """One metadata-only record per chat request that started."""
    logger.info(
        "chat conversation=%s outcome=%s tool_calls=%d turns=%d duration_ms=%.1f",
        conversation_id,
        outcome,
        len(outcomes),
        turns,
        (time.perf_counter() - started) * 1000,
        extra={
            "taskchat_conversation_id": conversation_id,
            "taskchat_outcome": outcome,
            "taskchat_tool_calls": len(outcomes),
            "taskchat_failed_calls": sum(not o.success for o in outcomes),
            "taskchat_turns": turns,
        },
    )
