"""``DurableRun``: a Temporal workflow that drives the core loop, the third driver.

The workflow runs the sans-IO ``Evaluation`` itself — rendering, validation, policy, the
confirmation gate, transcript bookkeeping are deterministic — and performs its actions as
activities: each ``SendRequest`` is one model activity, each call of a ``RunCalls`` one tool
activity (the calls of a turn run concurrently, as in ``aevaluate``). A run suspended for
confirmation waits durably for the answers (the ``confirm`` update, which takes answers only
for the calls pending at that moment), then resumes exactly as
``evaluate(..., confirmations=...)`` does.

A prompt with sections whose tools are listed at render (an MCP server's) is listed first, by
one activity; the workflow renders those sections from that recorded listing for the whole run
(``PromptTemplate.with_listings``), so it never does I/O and a replay renders the same tools.
A prompt without such sections runs no such activity.

The workflow traces nothing itself: the trace context the run was started in
(``RunInput.trace``) is copied into every activity's input, where the activity joins it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import suppress
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from affordance import Evaluator, PromptEvaluationError, PromptTemplate, Session, deny
    from affordance.adapters import AssistantMessage, Message, ModelRequest
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
    from affordance.serde import ParseError
    from affordance_temporal._failures import (
        lost_call,
        model_failure,
        refused_update,
        run_failure,
    )
    from affordance_temporal._hosts import WorkflowHost, host_for
    from affordance_temporal._inworkflow import StandIn, WorkflowClock, WorkflowExecutor
    from affordance_temporal.boundary import (
        Answers,
        CallData,
        ConfirmationData,
        ConfirmationRefusal,
        ListingCall,
        ModelAnswer,
        ModelCall,
        PendingData,
        PromptRef,
        RunInput,
        RunStatus,
        ToolAnswer,
        ToolCallInput,
        ToolListings,
        decode_overrides,
        decode_params,
        decode_texts,
        encode_overrides,
        from_data,
        to_data,
    )
    from affordance_temporal.names import (
        CONFIRM_UPDATE,
        LIST_TOOLS_ACTIVITY,
        MODEL_ACTIVITY,
        PENDING_QUERY,
        SETTLED_UPDATE,
        STATUS_QUERY,
        TOOL_ACTIVITY,
        WORKFLOW_NAME,
    )
    from affordance_temporal.options import (
        RunOptions,
        listing_activity_options,
        model_activity_options,
        tool_activity_options,
    )
    from affordance_temporal.results import decode_result, encode_calls, encode_response

__all__ = ["NO_ANSWER", "DurableRun"]

NO_ANSWER = "no answer came in time"
"""The reason the model reads for a call denied by ``RunOptions.confirmation_timeout``."""


@workflow.defn(name=WORKFLOW_NAME)
class DurableRun:
    """One evaluation of a registry prompt; its input and result are ``boundary`` envelopes."""

    def __init__(self) -> None:
        self._answers: dict[str, Confirmation] = {}
        self._decided: set[str] = set()
        self._pending: tuple[PendingData, ...] = ()
        self._done: tuple[CallData, ...] = ()
        self._transcript: tuple[Message, ...] = ()
        self._state = "running"
        self._turn = 0

    @workflow.run
    async def run(self, data: dict[str, Any]) -> dict[str, Any]:
        run_input = from_data(RunInput, data)
        try:
            response = await _Driver(self, run_input, host_for(workflow.info().task_queue)).run()
        except PromptEvaluationError as error:
            raise run_failure(error) from None
        finally:
            self._state = "finished"
            self._pending = ()
        result = to_data(encode_response(run_input.prompt.name, response))
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result

    @workflow.update(name=CONFIRM_UPDATE)
    def confirm(self, data: dict[str, Any]) -> None:
        """Answers for calls pending now: all are kept, or none (see :meth:`_acceptable`)."""
        for answer in self._acceptable(data):
            self._answers[answer.call_id] = Confirmation(answer.approved, answer.message)

    @confirm.validator
    def _check_confirm(self, data: dict[str, Any]) -> None:
        """Refused answers leave no trace: a rejected update is not written to the history."""
        self._acceptable(data)

    @workflow.query(name=PENDING_QUERY)
    def pending_confirmations(self) -> list[dict[str, Any]]:
        """The calls still waiting for an answer (empty unless the run waits)."""
        return [to_data(item) for item in self._unanswered()]

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> dict[str, Any]:
        return to_data(self._status())

    @workflow.update(name=SETTLED_UPDATE)
    async def settled(self) -> dict[str, Any]:
        """Returns once the run waits for answers or has finished: what a chat request awaits."""
        await workflow.wait_condition(self._is_settled)
        return to_data(self._status())

    # -- state shared with the driver ----------------------------------------------------------

    def _acceptable(self, data: dict[str, Any]) -> tuple[ConfirmationData, ...]:
        """The answers in ``data`` if every one is for a call waiting for its answer at this
        moment, each once; otherwise a ``ConfirmationRefused`` failure naming the calls that
        are not pending and the ones that are. So an answer never waits for a call the model
        has not asked for yet: that call is shown as pending, as any other."""
        try:
            answers = from_data(Answers, data).answers
        except ParseError as error:
            raise refused_update(
                ConfirmationRefusal(problem=f"the answers do not parse: {error}")
            ) from None
        waiting = tuple(item.call_id for item in self._unanswered())
        ids = [answer.call_id for answer in answers]
        not_pending = tuple(dict.fromkeys(i for i in ids if i not in waiting))
        if not_pending:
            answered = tuple(i for i in not_pending if i in self._decided or i in self._answers)
            finished = self._state == "finished"
            raise refused_update(ConfirmationRefusal(not_pending, waiting, answered, finished))
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            problem = f"more than one answer for the call(s) {', '.join(twice)}"
            raise refused_update(ConfirmationRefusal(pending=waiting, problem=problem))
        return answers

    def _unanswered(self) -> tuple[PendingData, ...]:
        return tuple(item for item in self._pending if item.call_id not in self._answers)

    def _is_settled(self) -> bool:
        return self._state == "finished" or bool(self._unanswered())

    def _status(self) -> RunStatus:
        if self._state == "finished":
            return RunStatus("finished", self._turn)
        unanswered = self._unanswered()
        if not unanswered:
            return RunStatus("running", self._turn)
        return RunStatus(
            "waiting", self._turn, unanswered, _said(self._transcript), self._done, self._transcript
        )

    async def wait_for_answers(
        self, suspended: PromptResponse[Any], timeout: float | None
    ) -> dict[str, Confirmation]:
        """Wait durably until every call ``suspended`` waits on is answered (or ``timeout``
        passes: the unanswered ones are denied), then hand the answers to
        ``Evaluation.resume``. Meanwhile the status shows what ``suspended`` holds: the
        pending calls, the calls run so far and the transcript."""
        pending = suspended.pending_confirmations
        self._pending = tuple(
            PendingData(item.call_id, item.name, dict(item.arguments)) for item in pending
        )
        self._done = encode_calls(suspended.tool_results)
        self._transcript = suspended.messages
        ids = [item.call_id for item in pending]
        with suppress(asyncio.TimeoutError):
            await workflow.wait_condition(
                lambda: all(call_id in self._answers for call_id in ids), timeout=timeout
            )
        answers: dict[str, Confirmation] = {}
        for call_id in ids:
            answer = self._answers.pop(call_id, None)
            answers[call_id] = answer if answer is not None else deny(NO_ANSWER)
        self._decided.update(ids)
        self._answers.clear()  # only pending calls are answered: nothing should be left
        self._pending = ()
        self._done = ()
        self._transcript = ()
        return answers


class _Driver:
    """Performs one evaluation's actions as activities."""

    def __init__(self, owner: DurableRun, run_input: RunInput, host: WorkflowHost) -> None:
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
                self.owner._turn = action.request.turn
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


def _said(transcript: tuple[Message, ...]) -> str | None:
    """The text of the model's last turn: the one that asked for the pending calls."""
    last = transcript[-1] if transcript else None
    return last.text if isinstance(last, AssistantMessage) and last.text else None
