"""Durable runs for a chat application: one run per user message of a conversation.

What a chat server (such as ``examples/taskchat``) calls instead of ``aevaluate``:

- :func:`chat_turn` starts (or rejoins) the run answering the conversation's latest message and
  waits until it has replied or waits for confirmations;
- :func:`answer_confirmations` sends the user's answers and waits the same way.

Both return a :class:`ChatTurn`. The run's workflow id comes from the conversation id, the
transcript's length and a digest of its last message, so a request sent twice (a retry, a
reload) rejoins the same run instead of starting a second one, a different message never
rejoins another message's run, and any server process can answer the confirmations later: the
suspended run lives in Temporal, not in the process that started it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.service import RPCError, RPCStatusCode

from affordance import PromptResponse
from affordance.adapters import Message
from affordance.runtime import Confirmation, PendingConfirmation, ToolCallResult
from affordance.serde import dump
from affordance_temporal.client import Settled, attach_run, start_run
from affordance_temporal.errors import ConfirmationRefusedError
from affordance_temporal.options import RunOptions
from affordance_temporal.registry import PromptRegistry

__all__ = ["ChatTurn", "answer_confirmations", "chat_turn", "chat_workflow_id"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """The run answering one message: its final ``response``, or the calls it waits on (with
    ``said``, what the model wrote in asking for them, and ``tool_results`` and ``messages``,
    the calls the run made so far and its transcript: what the response would hold at this
    point)."""

    workflow_id: str
    response: PromptResponse[Any] | None = None
    pending: tuple[PendingConfirmation, ...] = ()
    said: str | None = None
    tool_results: tuple[ToolCallResult, ...] = ()
    messages: tuple[Message, ...] = ()

    @property
    def needs_confirmation(self) -> bool:
        return bool(self.pending)


async def _to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """``work`` finished even if the awaiting task is cancelled meanwhile; the cancellation
    is raised once it is done."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


def chat_workflow_id(conversation_id: str, messages: Sequence[Message]) -> str:
    """The run answering ``messages``, the transcript ending with the message to answer."""
    last = json.dumps(dump(messages[-1]) if messages else None, sort_keys=True)
    digest = hashlib.sha256(last.encode()).hexdigest()[:16]
    return f"chat-{conversation_id}-{len(messages)}-{digest}"


async def chat_turn(
    client: Client,
    registry: PromptRegistry,
    prompt: str,
    *params: Any,
    conversation_id: str,
    messages: Sequence[Message],
    task_queue: str,
    options: RunOptions | None = None,
) -> ChatTurn:
    """Run the agent on ``messages`` (the stored transcript ending with the new user message)
    durably; return once it replied or waits for confirmations.

    Cancelled while the run is being started, it lets the start finish before the cancellation
    goes on: a caller that then cancels the run (``chat_workflow_id`` names it) finds it, where
    a start still on the wire would otherwise begin the run after the cancel was refused."""
    workflow_id = chat_workflow_id(conversation_id, messages)
    starting = start_run(
        client,
        registry,
        prompt,
        *params,
        task_queue=task_queue,
        workflow_id=workflow_id,
        messages=messages,
        options=options,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )
    handle = await _to_the_end(starting)
    settled = await handle.settled()
    return _turn(workflow_id, settled)


async def answer_confirmations(
    client: Client,
    registry: PromptRegistry,
    prompt: str,
    workflow_id: str,
    answers: Mapping[str, Confirmation],
) -> ChatTurn:
    """Send the user's answers to the run ``workflow_id`` waits on; return once it replied
    or waits again (a later turn's destructive call). Answers for calls the run is not
    waiting on, or that are not ``approve()``/``deny(...)``, are refused
    (:class:`ConfirmationRefusedError`, nothing kept) — except repeats: a run that has ended
    already, or has answered these calls already (answers sent before, by a request that gave
    up waiting), is collected as it stands: the first answers stand."""
    handle = attach_run(client, registry, workflow_id, prompt)
    try:
        await handle.confirm_all(answers)
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
    except ConfirmationRefusedError as error:
        if not error.first_answers_stand:
            raise
    settled = await handle.settled()
    return _turn(workflow_id, settled)


def _turn(workflow_id: str, settled: Settled) -> ChatTurn:
    return ChatTurn(
        workflow_id,
        settled.response,
        settled.pending,
        settled.said,
        settled.tool_results,
        settled.messages,
    )
