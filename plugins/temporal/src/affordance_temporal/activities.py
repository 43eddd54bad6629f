"""The activities of a durable run: one model request, one tool call, and — only for a prompt
with sections whose tools are listed at render (an MCP server's) — the listing of those tools,
once at the start of the run (``PromptTemplate.tools_listings``: JSON the workflow renders with).

Both rebuild what cannot cross the boundary from the worker's :class:`PromptRegistry` — the
rendered prompt, its tools and hosted tools — and check it against what the workflow rendered
(a different registry on a worker is a :class:`RegistryMismatchError`, never retried).
The model activity sends one attempt through the worker's adapter, its own retries off
(``ModelRequest.retries=False``), normalizes the turn and parses hosted-tool outputs with the
adapter's codecs; a transient provider error fails the attempt for Temporal to retry, within
the run's outage limit. The tool activity runs one attempt of the handler through the
executor (its timeout, its error mapping). Temporal does all the retrying: which failures it
tries again, and the heartbeats that tell it a worker is alive, are ``_attempts``'.

Both run in the trace the run was started in (the input's ``trace``, made current with
``affordance.runtime.joined_trace``), and publish what a tracer needs to make their spans
there — only when one watches (a subscriber of every bus, as ``affordance-otel``'s): the
model activity its request's ``ModelRequestSent`` and ``ModelAnswered``/``ModelRequestFailed``
(``RequestEvents``), the tool activity the ``ToolInvoked`` that ends the ``ToolHandlerStarted``
its executor published. Nobody watching, they send and run exactly as without tracing.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from affordance import (
    Evaluator,
    EventBus,
    PromptTemplate,
    RenderedPrompt,
    Session,
    Tool,
    ToolContext,
    ToolExecutor,
    ToolHandlerStarted,
    ToolResult,
)
from affordance.adapters import ModelRequest, ProviderTurn, output_name, output_schema
from affordance.clock import Deadline
from affordance.runtime import (
    CallOutcome,
    NestedWaiting,
    PreparedCall,
    RequestEvents,
    joined_trace,
)
from affordance.serde import ParseError, dump, parse
from affordance.tools import NO_RETRY
from affordance_temporal._attempts import heartbeating, provider_outages, retryable, translated
from affordance_temporal._inworkflow import StandIn
from affordance_temporal.boundary import (
    ListingCall,
    ModelAnswer,
    ModelCall,
    PromptRef,
    SpentUsage,
    ToolAnswer,
    ToolCallInput,
    ToolListings,
    from_data,
    to_data,
)
from affordance_temporal.errors import RegistryMismatchError
from affordance_temporal.names import (
    LIST_TOOLS_ACTIVITY,
    MODEL_ACTIVITY,
    RETRYABLE_TOOL_FAILURE,
    TOOL_ACTIVITY,
)
from affordance_temporal.prompt_refs import decode_overrides, decode_params, decode_texts
from affordance_temporal.registry import PromptRegistry
from affordance_temporal.results import encode_result

__all__ = ["DurableActivities", "heartbeating"]

NoneType = type(None)
_RENDER_CACHE_SIZE = 256


class DurableActivities:
    """The activities one worker serves, bound to its registry, adapter and executor.

    ``adapter`` is this worker's model connection (one per worker process, built from its
    environment); a worker that only runs tools may have none. ``executor`` (default: the
    adapter's) gives tool calls their default timeout and clock.

    Model requests publish their events on one bus for the instance: nothing subscribes to it
    (only every-bus subscribers see it, and its ``watches_requests`` reads theirs live), so a
    bus per request would buy nothing. Each tool call gets a bus of its own, as before: it is
    the handler's ``context.event_bus``, which a handler may subscribe to.
    """

    def __init__(
        self,
        registry: PromptRegistry,
        adapter: Evaluator | None = None,
        executor: ToolExecutor | None = None,
    ) -> None:
        self.registry = registry
        self.adapter = adapter
        if executor is None:
            executor = adapter.executor if adapter is not None else ToolExecutor()
        self.executor = executor
        self._context_adapter: Evaluator = (
            adapter if adapter is not None else Evaluator(StandIn(), executor=executor)
        )
        self._requests_bus = EventBus()
        self._one_attempt: dict[Tool[Any, Any], Tool[Any, Any]] = {}
        self._renders: OrderedDict[str, tuple[PromptTemplate[Any], RenderedPrompt[Any]]] = (
            OrderedDict()
        )

    def activities(self, *, model: bool = True, tools: bool = True) -> list[Callable[..., Any]]:
        """The activity functions to register on a worker; a worker serving tool calls also
        lists the tools of the sections that list them at render."""
        chosen: list[Callable[..., Any]] = []
        if model:
            if self.adapter is None:
                raise ValueError("a worker serving model requests needs an adapter")
            chosen.append(self.model_turn)
        if tools:
            chosen.extend((self.tool_call, self.list_tools))
        return chosen

    @activity.defn(name=MODEL_ACTIVITY)
    async def model_turn(self, data: dict[str, Any]) -> dict[str, Any]:
        adapter = self.adapter
        if adapter is None:
            raise ApplicationError("this worker has no adapter", non_retryable=True)
        with translated():
            call = from_data(ModelCall, data)
            prompt, rendered = self._render(call.prompt)
            _check_tools(call, rendered)
            wanted = set(call.hosted_tools)
            request = ModelRequest(
                prompt_name=prompt.name,
                run_id=call.run_id,
                turn=call.turn,
                rendered=rendered,
                instructions=call.instructions,
                messages=call.messages,
                tools=rendered.tools,
                hosted_tools=tuple(t for t in rendered.hosted_tools if t.name in wanted),
                output_schema=output_schema(prompt.output_type),
                output_name=output_name(prompt.output_type),
                deadline=_deadline(call.deadline_at, self.executor),
                tool_choice=call.tool_choice,
                parallel_tool_calls=call.parallel_tool_calls,
                retries=False,  # Temporal retries the activity: one policy, in the history
            )
            async with heartbeating():
                with provider_outages(call), joined_trace(call.trace):
                    turn = await self._send(adapter, request)
            turn = adapter.normalize_turn(turn, request)
            outputs: dict[str, Any] = {}
            if turn.hosted_items and rendered.hosted_tools:
                parsed = adapter.parse_hosted_outputs(turn.hosted_items, rendered.hosted_tools)
                outputs = {name: dump(output) for name, output in parsed.items()}
            return to_data(ModelAnswer(turn, outputs))

    @activity.defn(name=TOOL_ACTIVITY)
    async def tool_call(self, data: dict[str, Any]) -> dict[str, Any]:
        with translated():
            call_input = from_data(ToolCallInput, data)
            prompt, rendered = self._render(call_input.prompt)
            call = call_input.call
            tool = rendered.tool(call.name)
            if tool is None:
                raise RegistryMismatchError(
                    f"prompt {call_input.prompt.name!r} does not expose tool {call.name!r} "
                    "on this worker"
                )
            params = _params(tool, call_input.arguments)
            prepared = PreparedCall(call, self._single_attempt(tool), call_input.arguments, params)
            bus = EventBus()
            context = ToolContext(
                prompt=prompt,
                rendered_prompt=rendered,
                adapter=self._context_adapter,
                session=Session(),
                event_bus=bus,
                run_id=call_input.run_id,
                turn=call_input.turn,
                call_id=call.id,
                deadline=_deadline(call_input.deadline_at, self.executor),
                asynchronous=True,  # an activity awaits its call on the worker's loop
            )
        attempt = activity.info().attempt
        async with heartbeating():
            with joined_trace(call_input.trace):
                outcome = await self._run_call(prepared, context, attempt)
        spent = context.session.take_usage(call_input.run_id)  # a PromptTool's nested runs
        answer = ToolAnswer(
            encode_result(outcome.result),
            outcome.duration,
            attempt,
            outcome.error_code,
            tuple(SpentUsage(provider, usage) for provider, usage in spent),
        )
        if retryable(outcome, call_input.retry_timeouts) and attempt < call_input.max_attempts:
            raise ApplicationError(
                outcome.result.message,
                to_data(answer),
                type=RETRYABLE_TOOL_FAILURE,
                category=ApplicationErrorCategory.BENIGN,  # expected: logged at DEBUG
            )
        return to_data(answer)

    @activity.defn(name=LIST_TOOLS_ACTIVITY)
    async def list_tools(self, data: dict[str, Any]) -> dict[str, Any]:
        """The listings of the prompt's listed sections, by dotted path; the listing (which
        may connect) runs off the worker's event loop."""
        with translated():
            call = from_data(ListingCall, data)
            prompt = self.registry.prompt(call.prompt)
        async with heartbeating():
            with joined_trace(call.trace):
                listings = await asyncio.to_thread(prompt.tools_listings)
        return to_data(ToolListings(listings))

    async def _send(self, adapter: Evaluator, request: ModelRequest) -> ProviderTurn:
        """``adapter.asend(request)``; with its request events published when a tracer
        watches (the request then goes out with its ``chat`` span current)."""
        bus = self._requests_bus
        if not bus.watches_requests:
            return await adapter.asend(request)
        events = RequestEvents.for_connection(bus.publish, adapter.connection, asynchronous=True)
        return await events.asend(adapter.asend, request)

    async def _run_call(
        self, prepared: PreparedCall, context: ToolContext, attempt: int
    ) -> CallOutcome:
        """One attempt of the call through the executor. When its handler was watched (the
        executor published ``ToolHandlerStarted``: a tracer opened the call's span), the
        ``ToolInvoked`` that ends it is published here, where the call ran — the workflow's
        own comes later, in the workflow's process — and also when the attempt is cut short
        (the activity cancelled), so no span stays open on the worker."""
        bus = context.event_bus
        if not bus.wants(ToolHandlerStarted):
            return _refused_nested_wait(await self.executor.arun(prepared, context))
        started = time.perf_counter()
        try:
            outcome = _refused_nested_wait(await self.executor.arun(prepared, context))
        except BaseException as error:
            interrupted: ToolResult[None] = ToolResult.error(
                f"the call was interrupted ({type(error).__name__})"
            )
            cut = CallOutcome(prepared, interrupted, time.perf_counter() - started, attempt)
            bus.publish(
                cut.invoked(context.prompt.name, context.run_id, context.turn, attempts=attempt)
            )
            raise
        bus.publish(
            outcome.invoked(context.prompt.name, context.run_id, context.turn, attempts=attempt)
        )
        return outcome

    def _render(self, ref: PromptRef) -> tuple[PromptTemplate[Any], RenderedPrompt[Any]]:
        """The prompt and its render for ``ref``, kept for the next turns of the run."""
        key = json.dumps(to_data(ref), sort_keys=True, separators=(",", ":"))
        cached = self._renders.get(key)
        if cached is not None:
            self._renders.move_to_end(key)
            return cached
        prompt = self.registry.prompt(ref.name)
        params = decode_params(prompt, ref)
        rendered = prompt.render(
            *params,
            visibility_overrides=decode_overrides(ref.overrides),
            overrides=decode_texts(ref),
        )
        self._renders[key] = (prompt, rendered)
        if len(self._renders) > _RENDER_CACHE_SIZE:
            self._renders.popitem(last=False)
        return prompt, rendered

    def _single_attempt(self, tool: Tool[Any, Any]) -> Tool[Any, Any]:
        """``tool`` with one attempt: Temporal retries, so the executor must not as well."""
        single = self._one_attempt.get(tool)
        if single is None:
            single = replace(tool, retry=NO_RETRY)
            self._one_attempt[tool] = single
        return single


NESTED_WAIT_REFUSED: ToolResult[None] = ToolResult.error(
    "a destructive call inside this tool's nested prompt needs a confirmation, and a durable "
    "run cannot wait for one there yet; it was not run"
)
"""A durable run's tool call whose nested run (a ``PromptTool``'s) waits for confirmation: its
activity cannot hold the nested run across the workflow's wait, so the call fails, readably."""


def _refused_nested_wait(outcome: CallOutcome) -> CallOutcome:
    if isinstance(outcome.result.value, NestedWaiting):
        return replace(outcome, result=NESTED_WAIT_REFUSED, rendered=None)
    return outcome


def _check_tools(call: ModelCall, rendered: RenderedPrompt[Any]) -> None:
    names = tuple(tool.name for tool in rendered.tools)
    hosted = {tool.name for tool in rendered.hosted_tools}
    if names != call.tools or not set(call.hosted_tools) <= hosted:
        raise RegistryMismatchError(
            f"prompt {call.prompt.name!r} renders tools {list(names)} on this worker, but the "
            f"workflow exposed {list(call.tools)}"
        )


def _params(tool: Tool[Any, Any], arguments: dict[str, Any]) -> Any:
    if tool.params_type is NoneType:
        return None
    try:
        return parse(tool.params_type, arguments)
    except ParseError as error:
        raise RegistryMismatchError(
            f"arguments the workflow validated for {tool.name!r} do not parse here: {error}"
        ) from None


def _deadline(deadline_at: float | None, executor: ToolExecutor) -> Deadline | None:
    """The run's deadline (epoch seconds, workflow time) on this worker's clock."""
    if deadline_at is None:
        return None
    return Deadline.after(deadline_at - time.time(), executor.clock)
