"""``ToolTracer``: each tool call as an ``execute_tool {tool}`` span under its run's
``invoke_agent`` span, current while the handler runs; retries, timeouts, a cache hit and a
refusal as span events; the sections an ``open_sections`` call opened as an event on the run.

Part of :class:`~affordance_otel.tracer.RunTracer`, which subscribes its handlers.
"""

from __future__ import annotations

import time

from opentelemetry import context as otel_context
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer, set_span_in_context
from opentelemetry.util.types import AttributeValue

from affordance import ToolAttemptFailed, ToolHandlerStarted, ToolInvoked
from affordance.runtime import ToolCallDenied
from affordance_otel import content
from affordance_otel.naming import (
    AFFORDANCE_ATTEMPT,
    AFFORDANCE_ATTEMPTS,
    AFFORDANCE_CACHED,
    AFFORDANCE_REASON,
    AFFORDANCE_RUN_ID,
    AFFORDANCE_SECTIONS,
    AFFORDANCE_TURN,
    ERROR_TYPE,
    EVENT_CACHE_HIT,
    EVENT_SECTIONS_OPENED,
    EVENT_TOOL_DENIED,
    EVENT_TOOL_RETRY,
    EVENT_TOOL_TIMEOUT,
    gen_ai,
    tool_span_name,
)
from affordance_otel.run_spans import Runs
from affordance_otel.tool_types import FUNCTION, tool_type_of

__all__ = ["ToolTracer"]

Attributes = dict[str, AttributeValue]
_EXECUTE_TOOL = gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value
_OTHER = "_OTHER"  # error.type of a failed call when nothing more precise is known
_DENIED = "denied"  # error.type of a call the policy refused


class ToolTracer:
    """The tool-call handlers (see the module). A call whose handler ran has its span from
    ``ToolHandlerStarted``; one answered without it (cached, refused, invalid, declined) gets
    a span at ``ToolInvoked``, backdated by the call's duration."""

    def __init__(self, tracer: Tracer, runs: Runs, *, capture_content: bool) -> None:
        self._tracer = tracer
        self._runs = runs
        self._capture = capture_content

    def handler_started(self, event: ToolHandlerStarted) -> None:
        run = self._runs.get_or_join(event.run_id)
        attributes = self._tool_attributes(event, tool_type_of(event.tool))
        if self._capture:
            attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = content.arguments_json(event.params)
        span = self._tracer.start_span(
            tool_span_name(event.name),
            context=run.parent(),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )
        run.tools[event.call_id] = span
        # The executor publishes this event in a context private to the call: the span stays
        # current for the handler (spans it makes nest under it) and goes with that context.
        otel_context.attach(set_span_in_context(span))

    def attempt_failed(self, event: ToolAttemptFailed) -> None:
        run = self._runs.get(event.run_id)
        span = None if run is None else run.tools.get(event.call_id)
        if run is None or span is None:
            return
        run.failures[event.call_id] = event.error_code
        attributes: Attributes = {AFFORDANCE_ATTEMPT: event.attempt, ERROR_TYPE: event.error_code}
        if event.error_code == "timeout":
            span.add_event(EVENT_TOOL_TIMEOUT, attributes)
        if event.retrying:
            span.add_event(EVENT_TOOL_RETRY, attributes)

    def call_denied(self, event: ToolCallDenied) -> None:
        run = self._runs.get_or_hold(event.run_id, event)
        if run is None:
            return
        attributes: Attributes = {
            gen_ai.GEN_AI_TOOL_NAME: event.name,
            AFFORDANCE_REASON: event.reason,
        }
        if event.call_id:  # a hosted tool kept out of the request has no call
            attributes[gen_ai.GEN_AI_TOOL_CALL_ID] = event.call_id
            run.denied.add(event.call_id)
        run.agent.add_event(EVENT_TOOL_DENIED, attributes)

    def tool_invoked(self, event: ToolInvoked) -> None:
        run = self._runs.get_or_hold(event.run_id, event)
        if run is None:
            return
        span = run.tools.pop(event.call_id, None)
        if span is None:  # answered without a handler: cached, refused, invalid, skipped
            started = time.time_ns() - int(event.duration * 1e9)
            attributes = self._tool_attributes(event, FUNCTION)
            span = self._tracer.start_span(
                tool_span_name(event.name),
                context=run.context,
                kind=SpanKind.INTERNAL,
                attributes=attributes,
                start_time=started,
            )
        span.set_attribute(AFFORDANCE_ATTEMPTS, event.attempts)
        if event.cached:
            span.set_attribute(AFFORDANCE_CACHED, True)
            span.add_event(EVENT_CACHE_HIT)
        failure = run.failures.pop(event.call_id, None)
        if not event.success:
            if failure is None:
                failure = _DENIED if event.call_id in run.denied else _OTHER
            span.set_attribute(ERROR_TYPE, failure)
            span.set_status(Status(StatusCode.ERROR, failure))
        run.denied.discard(event.call_id)
        if self._capture:
            span.set_attribute(
                gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS, content.arguments_json(event.params)
            )
            span.set_attribute(
                gen_ai.GEN_AI_TOOL_CALL_RESULT, content.tool_result_json(event.rendered_output)
            )
        disclosure = event.disclosure
        if disclosure is not None and event.success:  # a refused request opened nothing
            opened: Attributes = {
                AFFORDANCE_SECTIONS: disclosure.requested_sections,
                gen_ai.GEN_AI_TOOL_CALL_ID: event.call_id,
            }
            if self._capture:
                opened[AFFORDANCE_REASON] = disclosure.reason
            run.agent.add_event(EVENT_SECTIONS_OPENED, opened)
        span.end()
        self._runs.settle(event.run_id, run)

    def _tool_attributes(
        self, event: ToolHandlerStarted | ToolInvoked, tool_type: str
    ) -> Attributes:
        """A call's span attributes; its run and turn too, as on a request's span (a durable
        run's calls are found by them on its workers)."""
        return {
            gen_ai.GEN_AI_OPERATION_NAME: _EXECUTE_TOOL,
            gen_ai.GEN_AI_TOOL_NAME: event.name,
            gen_ai.GEN_AI_TOOL_CALL_ID: event.call_id,
            gen_ai.GEN_AI_TOOL_TYPE: tool_type,
            AFFORDANCE_RUN_ID: event.run_id,
            AFFORDANCE_TURN: event.turn,
        }
