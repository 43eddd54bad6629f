"""The driver of a durable run: one evaluation's actions performed as activities.

It runs inside the workflow (``DurableRun`` imports it passed through the sandbox, as the rest
of the library), so all it does is deterministic: the sans-IO ``Evaluation`` decides, time is
the workflow's, and every action with I/O is an activity whose result the history keeps — the
listing of the prompt's listed sections (once, first, and only for a prompt that has some),
each model request, each tool call (a turn's calls concurrently, as in ``aevaluate``). A run
suspended for confirmation is handed to the workflow, which waits for the answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

from temporalio import workflow
from temporalio.exceptions import ActivityError

from affordance import Evaluator, PromptTemplate, Session
from affordance.adapters import ModelRequest
from affordance.clock import Deadline
from affordance.runtime import (
    CallOutcome,
    Confirmation,
    Evaluation,
    Finished,
    PreparedCall,
    PrivateEventBus,
    PromptResponse,
    ResultCache,
    RunCalls,
    SendRequest,
    ToolContext,
)
from affordance_temporal._failures import lost_call, model_failure
from affordance_temporal._hosts import WorkflowHost
from affordance_temporal._inworkflow import StandIn, WorkflowClock, WorkflowExecutor
from affordance_temporal.boundary import (
    ListingCall,
    ModelAnswer,
    ModelCall,
    PromptRef,
    RunInput,
    ToolAnswer,
    ToolCallInput,
    ToolListings,
    from_data,
    to_data,
)
from affordance_temporal.names import LIST_TOOLS_ACTIVITY, MODEL_ACTIVITY, TOOL_ACTIVITY
from affordance_temporal.options import (
    RunOptions,
    listing_activity_options,
    model_activity_options,
    tool_activity_options,
)
from affordance_temporal.prompt_refs import (
    decode_overrides,
    decode_params,
    decode_texts,
    encode_overrides,
)
from affordance_temporal.results import decode_result

__all__ = ["Driver", "RunOwner"]


class RunOwner(Protocol):
    """The workflow a driver works for: it shows the turn in flight in its status, and waits
    durably for the answers a suspended evaluation needs."""

    def at_turn(self, turn: int) -> None: ...

    async def wait_for_answers(
        self, suspended: PromptResponse[Any], timeout: float | None
    ) -> dict[str, Confirmation]: ...


class Driver:
    """Performs one evaluation's actions as activities."""

    def __init__(self, owner: RunOwner, run_input: RunInput, host: WorkflowHost) -> None:
        self.owner = owner
        self.host = host
        self.ref = run_input.prompt
        self.options: RunOptions = run_input.options
        self.trace = run_input.trace  # the caller's trace context, for every activity
        self.clock = WorkflowClock()
        self.executor = WorkflowExecutor(
            policy=host.policy,
            default_timeout=host.default_timeout,
            retry=host.retry,
            cache=ResultCache(),
            clock=self.clock,
            log_content=host.log_content,
        )
        self.stand_in = StandIn()
        self.runner = Evaluator(self.stand_in, executor=self.executor)
        options = self.options
        self.deadline = (
            None
            if options.deadline is None
            else Deadline(self.clock.monotonic() + options.deadline, self.clock)
        )
        self.run_input = run_input

    def _evaluation(self, prompt: PromptTemplate[Any]) -> Evaluation[Any]:
        options = self.options
        run_input = self.run_input
        run_id = run_input.run_id or workflow.info().workflow_id
        return Evaluation(
            prompt=prompt,
            params=decode_params(prompt, self.ref),
            adapter=self.runner,
            session=Session(session_id=run_id),
            # only its own handlers: the activities publish the run's requests and calls where
            # they happen, and this loop replays; a process-wide tracer must not see them twice
            bus=PrivateEventBus(),
            executor=self.executor,
            messages=run_input.messages,
            visibility_overrides=decode_overrides(self.ref.overrides) or None,
            overrides=decode_texts(self.ref),
            max_turns=options.max_turns,
            max_expansions=options.max_expansions if options.open_sections == "apply" else 0,
            deadline=self.deadline,
            run_id=run_id,
            tool_choice=options.tool_choice,
            parallel_tool_calls=options.parallel_tool_calls,
            limits=run_input.limits,
        )

    async def run(self) -> PromptResponse[Any]:
        prompt = await self._listed(self.host.registry.prompt(self.ref.name))
        evaluation = self._evaluation(prompt)
        action = evaluation.start()
        while True:
            if isinstance(action, SendRequest):
                self.owner.at_turn(action.request.turn)
                answer = await self.model_turn(action.request)
                self.stand_in.hosted = answer.hosted_outputs
                action = evaluation.on_turn(answer.turn)
            elif isinstance(action, RunCalls):
                calls = action.calls
                outcomes = await asyncio.gather(*(self.tool_call(p, c) for p, c in calls))
                action = evaluation.on_outcomes(outcomes)
            else:
                response = _response(action)
                if not response.pending_confirmations:
                    return response
                answers = await self.owner.wait_for_answers(
                    response, self.options.confirmation_timeout
                )
                action = evaluation.resume(answers)

    async def _listed(self, prompt: PromptTemplate[Any]) -> PromptTemplate[Any]:
        """``prompt`` with its listed sections fixed to the listing one activity returns (its
        result is in the history, so a replay renders the same tools); ``prompt`` itself, and
        no activity, when it has no such sections. A failed listing fails the run."""
        if not prompt.listed_section_paths():
            return prompt
        options = listing_activity_options(self.options, remaining=self._remaining())
        data = await workflow.execute_activity(
            LIST_TOOLS_ACTIVITY,
            to_data(ListingCall(self.ref.name, self.trace)),
            activity_id="list-tools",
            **options.kwargs(),
        )
        listings = from_data(ToolListings, data).listings
        # the sections are the worker's objects: what their listed forms import (a schema
        # validator, say) is the worker's too, not a module re-imported into the sandbox
        with workflow.unsafe.imports_passed_through():
            return prompt.with_listings(listings)

    async def model_turn(self, request: ModelRequest) -> ModelAnswer:
        tool_choice = request.tool_choice
        call = ModelCall(
            prompt=self._ref(request.rendered.visibility_overrides),
            run_id=request.run_id,
            turn=request.turn,
            instructions=request.instructions,
            messages=request.messages,
            tools=tuple(tool.name for tool in request.tools),
            hosted_tools=tuple(tool.name for tool in request.hosted_tools),
            tool_choice=dict(tool_choice) if isinstance(tool_choice, Mapping) else tool_choice,
            parallel_tool_calls=request.parallel_tool_calls,
            deadline_at=self._deadline_at(),
            outage_limit=self.options.provider_outage_limit,
            max_attempts=self.options.model_max_attempts,
            trace=self.trace,
        )
        options = model_activity_options(self.options, remaining=self._remaining())
        try:
            data = await workflow.execute_activity(
                MODEL_ACTIVITY,
                to_data(call),
                activity_id=f"model-{request.turn}",
                **options.kwargs(),
            )
        except ActivityError as error:
            deadline_passed = self.deadline is not None and self.deadline.remaining() <= 0
            raise model_failure(error, request.prompt_name, deadline_passed) from None
        return from_data(ModelAnswer, data)

    async def tool_call(self, prepared: PreparedCall, context: ToolContext) -> CallOutcome:
        tool = prepared.tool
        assert tool is not None  # the loop only asks to run calls of known tools
        policy = tool.retry or self.host.retry
        rendered = context.rendered_prompt
        call_input = ToolCallInput(
            prompt=self._ref(rendered.visibility_overrides if rendered is not None else {}),
            run_id=context.run_id,
            turn=context.turn,
            call=prepared.call,
            arguments=dict(prepared.arguments) if isinstance(prepared.arguments, Mapping) else {},
            max_attempts=policy.max_attempts,
            retry_timeouts=policy.retry_timeouts,
            deadline_at=self._deadline_at(),
            trace=self.trace,
        )
        options = tool_activity_options(
            tool,
            self.options,
            default_timeout=self.host.default_timeout,
            default_retry=self.host.retry,
            remaining=self._remaining(),
        )
        try:
            data = await workflow.execute_activity(
                TOOL_ACTIVITY,
                to_data(call_input),
                activity_id=f"tool-{context.turn}-{prepared.call.id}",
                **options.kwargs(),
            )
        except ActivityError as error:
            return lost_call(prepared, error)
        answer = from_data(ToolAnswer, data)
        for spent in answer.usage:  # the call's nested runs, counted as a run counts them
            context.add_usage(spent.usage, spent.provider)
        return CallOutcome(
            prepared,
            decode_result(answer.result, tool),
            answer.duration,
            answer.attempts,
            answer.error_code,
        )

    def _ref(self, overrides: Mapping[Any, Any]) -> PromptRef:
        return PromptRef(
            self.ref.name, self.ref.params, encode_overrides(overrides), self.ref.texts
        )

    def _deadline_at(self) -> float | None:
        return None if self.deadline is None else self.deadline.expires_at

    def _remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline.remaining()


def _response(action: Finished[Any]) -> PromptResponse[Any]:
    return action.response
