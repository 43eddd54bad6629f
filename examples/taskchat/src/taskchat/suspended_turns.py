"""A turn suspended for confirmation, finished in any process.

When the model calls a destructive tool, affordance suspends the run and returns
``pending_confirmations``; the suspended run itself lives only in that request's in-memory
``Session``. So the chat service stores what is needed to finish the turn anywhere (a
:class:`~taskchat.conversations.PendingTurn`, made by :func:`suspended_turn`): the pending calls
(id, name, validated arguments) and the results of that turn's other calls, which already ran;
the stored transcript ends with the model's turn that made the calls.

When the answers come — in this process or after a restart — :func:`check_answers` holds them
to the pending calls and :class:`TurnFinisher` finishes the turn: approved calls run through the
prompt's own ``Tool`` with the adapter's ``ToolExecutor`` (same validation, timeout, retries,
error mapping and metadata log as any call, and the same events: a tracer traces the approved
call under the confirming request), denied ones get a "declined" result, and every call of the
turn gets exactly one result, in call order. One path serves both cases, so it is the one
every confirmation test exercises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from affordance import (
    Evaluator,
    EventBus,
    PromptResponse,
    PromptTemplate,
    Session,
    Tool,
    ToolCallFinished,
    ToolContext,
    ToolResult,
    declined_result,
)
from affordance.adapters import AssistantMessage, ToolCall, ToolResultMessage
from affordance.clock import Deadline
from taskchat.chat_errors import (
    ConfirmationMismatchError,
    ConfirmationRequiredError,
    InvalidChatRequestError,
)
from taskchat.conversations import Conversation, PendingCall, PendingTurn
from taskchat.prompt import AssistantContext

__all__ = ["Answer", "TurnFinisher", "check_answers", "suspended_turn"]

Answer = Literal["approve", "deny"]


def suspended_turn(
    response: PromptResponse[None], results: Sequence[ToolResultMessage], *, turns_before: int = 0
) -> PendingTurn | None:
    """What must be stored to finish a suspended run's turn later, anywhere (``results``: the
    results of the run's calls so far; ``turns_before``: the turns numbered before the run, when
    it continues an answered turn); None when the run did not suspend."""
    if not response.pending_confirmations:
        return None
    turn = response.messages[-1]
    if not isinstance(turn, AssistantMessage):
        raise TypeError("a suspended evaluation's transcript must end with the model's turn")
    waiting = {p.call_id for p in response.pending_confirmations}
    in_turn = {call.id for call in turn.tool_calls}
    return PendingTurn(
        run_id=response.run_id,
        turn=response.turns,
        calls=tuple(
            PendingCall(p.call_id, p.name, dict(p.arguments))
            for p in response.pending_confirmations
        ),
        settled=tuple(r for r in results if r.call_id in in_turn and r.call_id not in waiting),
        turns_before=turns_before,
    )


def check_answers(pending: PendingTurn, confirmations: Mapping[str, Answer], reason: str) -> None:
    """The answers must name exactly the pending calls; a reason only goes with a denial."""
    pending_json = [
        {"call_id": call.call_id, "name": call.name, "arguments": dict(call.arguments)}
        for call in pending.calls
    ]
    if not confirmations:
        raise ConfirmationRequiredError(
            "answer the pending confirmations first", pending_confirmations=pending_json
        )
    if set(confirmations) != {call.call_id for call in pending.calls}:
        raise ConfirmationMismatchError(
            "confirmations must answer exactly the pending calls",
            pending_confirmations=pending_json,
            answered=sorted(confirmations),
        )
    if reason.strip() and "deny" not in confirmations.values():
        raise InvalidChatRequestError(
            "body.message",
            "with confirmations, message is the reason for a denial, and nothing was denied",
        )


class TurnFinisher:
    """Runs or declines the calls of a stored suspended turn, with the adapter's executor."""

    def __init__(
        self, *, adapter: Evaluator, prompt: PromptTemplate[None], deadline: float | None
    ) -> None:
        self._adapter = adapter
        self._prompt = prompt
        self._deadline = deadline

    async def finish(
        self,
        conversation: Conversation,
        confirmations: Mapping[str, Answer],
        reason: str,
        context: AssistantContext,
        heard: Callable[[ToolCallFinished], None],
    ) -> tuple[ToolResultMessage, ...]:
        """One result per call of the turn, in call order; ``heard`` gets each call it runs or
        declines as it finishes (the settled ones were reported when they ran)."""
        pending = conversation.pending
        turn = conversation.messages[-1] if conversation.messages else None
        if pending is None or not isinstance(turn, AssistantMessage):
            raise TypeError(f"conversation {conversation.id} has no suspended turn to finish")
        rendered = self._prompt.render(context)
        tools = {tool.name: tool for tool in rendered.tools}
        settled = {result.call_id: result for result in pending.settled}
        results: list[ToolResultMessage] = []
        for call in turn.tool_calls:
            if call.id in settled:
                results.append(settled[call.id])
                continue
            if confirmations.get(call.id) == "approve":
                result = await self._run_confirmed(call, tools, rendered, pending)
            else:
                result = declined_result(call.name, reason)
            heard(ToolCallFinished(call.id, call.name, result, pending.shown_turn))
            results.append(
                ToolResultMessage(call.id, call.name, result.model_text(), not result.success)
            )
        return tuple(results)

    async def _run_confirmed(
        self,
        call: ToolCall,
        tools: Mapping[str, Tool[Any, Any]],
        rendered: Any,
        pending: PendingTurn,
    ) -> ToolResult[Any]:
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
        # published as the run would have: a tracer makes the call's execute_tool span (joining
        # the suspended run, under the span current here: the confirming request's)
        context.event_bus.publish(outcome.invoked(self._prompt.name, pending.run_id, pending.turn))
        return outcome.result
