"""Starting durable runs and talking to them: ``start_run``, ``DurableRunHandle``.

The client side of a deployment holds the same :class:`PromptRegistry` as the workers: it
names the prompt when it starts a run, and it types what comes back (the output, tool params
and values, pending calls) with the prompt's own types.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from temporalio.client import (
    Client,
    RPCTimeoutOrCancelledError,
    WorkflowFailureError,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from affordance import (
    OverridesStore,
    PromptOverrides,
    PromptResponse,
    SectionPath,
    SectionVisibility,
    UsageLimits,
)
from affordance.adapters import Message
from affordance.runtime import Confirmation, PendingConfirmation, ToolCallResult, trace_carrier
from affordance.serde import ParseError
from affordance_temporal.boundary import (
    Answers,
    ConfirmationData,
    ConfirmationRefusal,
    PendingData,
    RunInput,
    RunResult,
    RunStatus,
    from_data,
    to_data,
)
from affordance_temporal.errors import (
    CONFIRMATION_REFUSED,
    EVALUATION_FAILURE,
    ConfirmationRefusedError,
    evaluation_error_from_details,
)
from affordance_temporal.names import (
    CONFIRM_UPDATE,
    PENDING_QUERY,
    SETTLED_UPDATE,
    STATUS_QUERY,
    WORKFLOW_NAME,
)
from affordance_temporal.options import RunOptions
from affordance_temporal.prompt_refs import prompt_ref
from affordance_temporal.registry import PromptRegistry
from affordance_temporal.results import decode_calls, decode_response, params_of

__all__ = ["DurableRunHandle", "Settled", "attach_run", "start_run"]


async def start_run(
    client: Client,
    registry: PromptRegistry,
    prompt: str,
    *params: Any,
    task_queue: str,
    workflow_id: str,
    messages: Sequence[Message] = (),
    visibility_overrides: Mapping[SectionPath, SectionVisibility] | None = None,
    options: RunOptions | None = None,
    run_id: str | None = None,
    limits: UsageLimits | None = None,
    overrides: OverridesStore | PromptOverrides | None = None,
    overrides_tag: str = "latest",
    **start_options: Any,
) -> DurableRunHandle:
    """Start a durable evaluation of registry prompt ``prompt`` — ``evaluate``'s arguments,
    by value — and return its handle. ``start_options`` go to ``Client.start_workflow``
    (``id_conflict_policy``, ``execution_timeout``, ``memo``...). A run that reaches one of its
    ``limits`` fails with a ``PromptEvaluationError`` of phase ``limits`` naming the limit (a
    durable run is not resumed past a limit: start another with its ``messages``). A cost limit
    is refused (``ValueError``): the workflow cannot price turns yet. ``overrides`` (a store,
    read now under ``overrides_tag``, or a document) change the prompt's texts for the whole
    run, as ``evaluate(overrides=...)`` does: the document goes in the workflow's input, so a
    store edited during the run does not change it. The trace context current here (a span
    of the caller's, when a tracing plugin is on) goes in it too: the run's model requests and
    tool calls are traced under it, on whichever worker runs them."""
    template = registry.prompt(prompt)  # an unknown name fails here, not in a worker
    texts = None
    if isinstance(overrides, PromptOverrides):
        texts = overrides
        template.applied_overrides(texts)  # one for another prompt fails here
    elif overrides is not None:
        texts = overrides.load(template.ns, template.key, overrides_tag)
    if limits is not None and limits.cost is not None:
        raise ValueError(
            "a durable run cannot hold a cost limit yet: its workflow cannot price turns "
            "(genai-prices does not run in Temporal's sandbox); limit its tokens instead"
        )
    run_input = RunInput(
        prompt=prompt_ref(prompt, params, visibility_overrides, texts),
        messages=tuple(messages),
        options=options if options is not None else RunOptions(),
        run_id=run_id,
        limits=limits,
        trace=trace_carrier(),
    )
    handle: WorkflowHandle[Any, Any] = await client.start_workflow(
        WORKFLOW_NAME,
        to_data(run_input),
        id=workflow_id,
        task_queue=task_queue,
        **start_options,
    )
    return DurableRunHandle(handle, registry, prompt)


def attach_run(
    client: Client, registry: PromptRegistry, workflow_id: str, prompt: str
) -> DurableRunHandle:
    """The handle of a run started earlier (by another process, before a restart...)."""
    return DurableRunHandle(client.get_workflow_handle(workflow_id), registry, prompt)


@dataclass(frozen=True, slots=True)
class Settled:
    """A run that waits for answers (``pending``; ``said``: the model's text in the turn that
    asked for them; ``tool_results`` and ``messages``: the calls run so far, typed as in
    ``response``, and the transcript so far) or has finished (``response``)."""

    pending: tuple[PendingConfirmation, ...] = ()
    response: PromptResponse[Any] | None = None
    said: str | None = None
    tool_results: tuple[ToolCallResult, ...] = ()
    messages: tuple[Message, ...] = ()


class DurableRunHandle:
    """One durable run: its pending confirmations, the answers, the result."""

    def __init__(
        self, handle: WorkflowHandle[Any, Any], registry: PromptRegistry, prompt: str
    ) -> None:
        self.handle = handle
        self.registry = registry
        self.prompt = prompt

    @property
    def workflow_id(self) -> str:
        return self.handle.id

    async def pending_confirmations(self) -> tuple[PendingConfirmation, ...]:
        """The destructive calls waiting for an answer (a query: needs a running worker)."""
        data = await self.handle.query(PENDING_QUERY)
        return self._pending(from_data(tuple[PendingData, ...], data))

    async def status(self) -> RunStatus:
        return from_data(RunStatus, await self.handle.query(STATUS_QUERY))

    async def confirm(self, call_id: str, answer: Confirmation) -> None:
        """Answer one pending call (``approve()`` or ``deny("reason")``); the run resumes once
        every call it waits on is answered. See :meth:`confirm_all`."""
        await self.confirm_all({call_id: answer})

    async def confirm_all(self, answers: Mapping[str, Confirmation]) -> None:
        """Answer pending calls, all at once: the run takes every answer or none. An answer
        for a call that is not pending in the run at this moment (not asked for yet, unknown,
        answered already), or one that is not ``approve()``/``deny(...)``, is refused with
        :class:`ConfirmationRefusedError` naming it and the pending calls, and nothing is kept:
        a call is approved only once it has been shown as pending.

        The answers are a Temporal update: the run checks them itself, so the call returns once
        a worker has taken them. Sent while no worker runs, it waits for one; if the caller
        gives up meanwhile, Temporal still hands the answers to the next worker (it holds them
        in memory, not in the run's history, until then)."""
        given: Mapping[str, object] = answers  # callers are not always type-checked
        wrong = sorted(c for c, a in given.items() if not isinstance(a, Confirmation))
        if wrong:
            raise ConfirmationRefusedError(self.workflow_id, not_answers=wrong)
        if not answers:
            return
        data = Answers(
            tuple(ConfirmationData(c, a.approved, a.message) for c, a in answers.items())
        )
        try:
            await self.handle.execute_update(CONFIRM_UPDATE, to_data(data))
        except RPCTimeoutOrCancelledError as error:
            if isinstance(error.__cause__, asyncio.CancelledError):
                raise error.__cause__ from None
            raise
        except WorkflowUpdateFailedError as error:
            refused = _refusal(error, self.workflow_id)
            if refused is None:
                raise
            raise refused from None
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            # the run closed (or never was) while the answers were on their way: none taken
            raise ConfirmationRefusedError(
                self.workflow_id, not_pending=sorted(answers), finished=True
            ) from None

    async def settled(self) -> Settled:
        """Wait until the run waits for answers or has finished (an update: returns at once
        if it already does). A failed run raises its ``PromptEvaluationError``; cancelling
        the waiting task cancels the wait (temporalio reports it as an RPC timeout: it is
        raised again as the cancellation it was)."""
        try:
            status = from_data(RunStatus, await self.handle.execute_update(SETTLED_UPDATE))
        except RPCTimeoutOrCancelledError as error:
            if isinstance(error.__cause__, asyncio.CancelledError):
                raise error.__cause__ from None
            raise
        except (WorkflowUpdateFailedError, RPCError):  # the run ended while asked: see how
            return Settled(response=await self.result())
        if status.state == "finished":
            return Settled(response=await self.result())
        return Settled(
            pending=self._pending(status.pending),
            said=status.said,
            tool_results=decode_calls(status.tool_results, self.registry.tools(self.prompt)),
            messages=status.messages,
        )

    async def result(self) -> PromptResponse[Any]:
        """The final response, typed through the registry; a run that failed raises the
        ``PromptEvaluationError`` that ``evaluate`` would have raised."""
        try:
            data = await self.handle.result()
        except WorkflowFailureError as failure:
            error = _evaluation_error(failure)
            if error is None:
                raise
            raise error from failure
        return decode_response(from_data(RunResult, data), self.registry)

    def _pending(self, items: Sequence[PendingData]) -> tuple[PendingConfirmation, ...]:
        tools = self.registry.tools(self.prompt)
        return tuple(
            PendingConfirmation(
                item.call_id,
                item.name,
                params_of(item.arguments, tools.get(item.name)),
                item.arguments,
            )
            for item in items
        )


def _refusal(error: WorkflowUpdateFailedError, workflow_id: str) -> ConfirmationRefusedError | None:
    """The run's refusal of answers, as the error the caller gets."""
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type != CONFIRMATION_REFUSED:
        return None
    try:
        refusal = from_data(ConfirmationRefusal, cause.details[0] if cause.details else {})
    except ParseError:
        refusal = ConfirmationRefusal(problem=cause.message)
    return ConfirmationRefusedError(
        workflow_id,
        not_pending=refusal.not_pending,
        pending=refusal.pending,
        answered=refusal.answered,
        finished=refusal.finished,
        problem=refusal.problem,
    )


def _evaluation_error(failure: WorkflowFailureError) -> Exception | None:
    cause = failure.cause
    if isinstance(cause, ApplicationError) and cause.type == EVALUATION_FAILURE:
        return evaluation_error_from_details(cause.details[0] if cause.details else None)
    return None
