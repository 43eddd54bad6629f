"""``RunTracer``: the events of every run, as GenAI spans, span events and metrics.

Subscribed to every bus of the process (``EventBus.subscribe_every_bus``) by
:class:`~affordance_otel.AffordanceInstrumentor`, it turns each run into one ``invoke_agent``
span, with a ``chat`` (``generate_content`` for Google) span per model request and an
``execute_tool`` span per tool call under it (those are :class:`ToolTracer`'s). The whole
mapping — every span, attribute, event and metric — is in ``specs/OBSERVABILITY.md``. Metadata
only, unless ``capture_content``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, set_span_in_context
from opentelemetry.util.types import AttributeValue

from affordance import (
    EvaluationFailed,
    EvaluationStarted,
    ModelAnswered,
    ModelRequestFailed,
    ModelRequestSent,
    ModelSwitched,
    OutputRetried,
    PromptExecuted,
    PromptRendered,
    ToolAttemptFailed,
    ToolHandlerStarted,
    ToolInvoked,
)
from affordance.runtime import (
    AssistantMessage,
    ConfirmationRequested,
    ConfirmationResolved,
    Message,
    ToolCallDenied,
    UserMessage,
)
from affordance_otel import content
from affordance_otel.metrics import RequestMetrics
from affordance_otel.naming import (
    AFFORDANCE_APPROVED,
    AFFORDANCE_ATTEMPT,
    AFFORDANCE_FAILED_MODEL,
    AFFORDANCE_FAILED_PROVIDER,
    AFFORDANCE_HTTP_STATUS,
    AFFORDANCE_MESSAGE,
    AFFORDANCE_PENDING_CONFIRMATIONS,
    AFFORDANCE_PROBLEMS,
    AFFORDANCE_REASON,
    AFFORDANCE_RESUMED,
    AFFORDANCE_RUN_ID,
    AFFORDANCE_TURN,
    ERROR_TYPE,
    EVENT_CONFIRMATION_REQUESTED,
    EVENT_CONFIRMATION_RESOLVED,
    EVENT_MODEL_SWITCHED,
    EVENT_OUTPUT_RETRY,
    agent_span_name,
    error_type,
    gen_ai,
    operation_of,
    provider_of,
    request_span_name,
    server_attributes,
)
from affordance_otel.run_spans import RequestSpan, Runs, RunSpans
from affordance_otel.tool_spans import ToolTracer

__all__ = ["RunTracer"]

Attributes = dict[str, AttributeValue]
Handler = Callable[[Any], None]
_INVOKE_AGENT = gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value


class RunTracer:
    """Event handlers building the spans and metrics of every run (see the module).

    Runs are keyed by run id (:class:`~affordance_otel.run_spans.Runs`); events that come
    before their run's ``EvaluationStarted`` are held and replayed once it starts. A run whose
    start it never sees (another process's, or begun before instrumenting) gets no agent span;
    its requests and calls are a joined run's (``Runs.get_or_join``)."""

    def __init__(self, tracer: Tracer, metrics: RequestMetrics, *, capture_content: bool) -> None:
        self._tracer = tracer
        self._metrics = metrics
        self._capture = capture_content
        self._runs = Runs()
        self._tools = ToolTracer(tracer, self._runs, capture_content=capture_content)

    def handlers(self) -> tuple[tuple[type[Any], Handler], ...]:
        """Each event type this tracer subscribes to, with its handler. ``PromptRendered``
        only with content capture: otherwise runs need not build it."""
        rendered = ((PromptRendered, self.prompt_rendered),) if self._capture else ()
        tools = self._tools
        return (
            *rendered,
            (EvaluationStarted, self.run_started),
            (ModelRequestSent, self.request_sent),
            (ModelSwitched, self.model_switched),
            (ModelAnswered, self.request_answered),
            (ModelRequestFailed, self.request_failed),
            (ToolHandlerStarted, tools.handler_started),
            (ToolAttemptFailed, tools.attempt_failed),
            (ToolCallDenied, tools.call_denied),
            (ToolInvoked, tools.tool_invoked),
            (ConfirmationRequested, self.confirmation_requested),
            (ConfirmationResolved, self.confirmation_resolved),
            (OutputRetried, self.output_retried),
            (PromptExecuted, self.run_executed),
            (EvaluationFailed, self.run_failed),
        )

    def forget_runs(self) -> None:
        """Drop the runs in flight, unexported (uninstrumenting)."""
        self._runs.clear()

    # -- the run ----------------------------------------------------------------------------

    def run_started(self, event: EvaluationStarted) -> None:
        attributes: Attributes = {
            gen_ai.GEN_AI_OPERATION_NAME: _INVOKE_AGENT,
            gen_ai.GEN_AI_PROVIDER_NAME: provider_of(event.provider),
            gen_ai.GEN_AI_AGENT_NAME: event.prompt_name,
            gen_ai.GEN_AI_PROMPT_NAME: event.prompt_name,
            AFFORDANCE_RUN_ID: event.run_id,
            AFFORDANCE_RESUMED: event.resumed,
        }
        if event.model:
            attributes[gen_ai.GEN_AI_REQUEST_MODEL] = event.model
        span = self._tracer.start_span(
            agent_span_name(event.prompt_name), kind=SpanKind.INTERNAL, attributes=attributes
        )
        earlier, early = self._runs.start(event.run_id, RunSpans(span))
        if earlier is not None:
            earlier.end_children()
            if not earlier.joined:
                earlier.agent.end()
        replay: dict[type[Any], Handler] = {
            PromptRendered: self.prompt_rendered,
            ToolCallDenied: self._tools.call_denied,
            ToolInvoked: self._tools.tool_invoked,
            ConfirmationResolved: self.confirmation_resolved,
        }
        for held in early:
            replay[type(held)](held)

    def prompt_rendered(self, event: PromptRendered) -> None:
        """Keep the prompt's text, the run's first message (content capture only): a run
        renders before it starts, and again when the model opens sections."""
        run = self._runs.get_or_hold(event.run_id, event)
        if run is not None:
            run.opening = event.rendered.text

    def run_executed(self, event: PromptExecuted) -> None:
        run = self._runs.end(event.run_id)
        if run is None or run.joined:
            return
        response = event.response
        span = run.agent
        usage = response.usage
        span.set_attributes(
            {
                gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: (response.finish_reason,),
                gen_ai.GEN_AI_USAGE_INPUT_TOKENS: usage.input_tokens,
                gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: usage.output_tokens,
            }
        )
        if usage.cached_input_tokens:
            span.set_attribute(
                gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, usage.cached_input_tokens
            )
        if response.pending_confirmations:
            pending = len(response.pending_confirmations)
            span.set_attribute(AFFORDANCE_PENDING_CONFIRMATIONS, pending)
        if self._capture:
            messages: tuple[Message, ...] = response.messages
            if run.opening is not None:
                messages = (UserMessage(run.opening), *messages)
            last = messages[-1] if messages else None
            if isinstance(last, AssistantMessage):
                span.set_attribute(
                    gen_ai.GEN_AI_OUTPUT_MESSAGES,
                    content.output_messages_json(last, response.finish_reason),
                )
                messages = messages[:-1]
            span.set_attribute(gen_ai.GEN_AI_INPUT_MESSAGES, content.input_messages_json(messages))
        span.end()

    def run_failed(self, event: EvaluationFailed) -> None:
        run = self._runs.end(event.run_id)
        if run is None or run.joined:
            return
        self._fail(run.agent, event.error)
        run.agent.end()

    # -- requests to the model --------------------------------------------------------------

    def request_sent(self, event: ModelRequestSent) -> None:
        """Start the request's span, current from here: the event is published in a context
        private to the request (core's promise), which the request is sent in."""
        run = self._runs.get_or_join(event.run_id)
        provider = provider_of(event.provider)
        operation = operation_of(provider)
        metric_attributes: dict[str, str | int] = {
            gen_ai.GEN_AI_OPERATION_NAME: operation,
            gen_ai.GEN_AI_PROVIDER_NAME: provider,
        }
        if event.model:
            metric_attributes[gen_ai.GEN_AI_REQUEST_MODEL] = event.model
        if event.server:
            metric_attributes.update(server_attributes(event.server))
        attributes: Attributes = {
            **metric_attributes,
            gen_ai.GEN_AI_REQUEST_STREAM: event.streamed,
            AFFORDANCE_RUN_ID: event.run_id,
            AFFORDANCE_TURN: event.turn,
        }
        span = self._tracer.start_span(
            request_span_name(operation, event.model),
            context=run.parent(),
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        run.requests[event.turn] = RequestSpan(span, metric_attributes)
        otel_context.attach(set_span_in_context(span))

    def model_switched(self, event: ModelSwitched) -> None:
        """A fallback's switch, an event on the run: published once the turn's request (and
        its span) has ended, naming the model that failed and the one that answered."""
        run = self._runs.get(event.run_id)
        if run is None:
            return
        attributes: Attributes = {
            AFFORDANCE_TURN: event.turn,
            AFFORDANCE_FAILED_PROVIDER: provider_of(event.failed_provider),
            gen_ai.GEN_AI_PROVIDER_NAME: provider_of(event.provider),
            AFFORDANCE_REASON: event.reason,
        }
        if event.failed_model:
            attributes[AFFORDANCE_FAILED_MODEL] = event.failed_model
        if event.status is not None:
            attributes[AFFORDANCE_HTTP_STATUS] = event.status
        run.agent.add_event(EVENT_MODEL_SWITCHED, attributes)

    def request_answered(self, event: ModelAnswered) -> None:
        run = self._runs.get(event.run_id)
        request = None if run is None else run.requests.pop(event.turn, None)
        if run is None or request is None:
            return
        provider = provider_of(event.provider)
        usage = event.usage
        span = request.span
        metric_attributes = {**request.metric_attributes, gen_ai.GEN_AI_PROVIDER_NAME: provider}
        attributes: Attributes = {
            gen_ai.GEN_AI_PROVIDER_NAME: provider,
            gen_ai.GEN_AI_RESPONSE_FINISH_REASONS: (event.finish_reason,),
            gen_ai.GEN_AI_USAGE_INPUT_TOKENS: usage.input_tokens,
            gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: usage.output_tokens,
        }
        answered_by = event.response_model or event.model
        if answered_by:
            attributes[gen_ai.GEN_AI_RESPONSE_MODEL] = answered_by
            metric_attributes[gen_ai.GEN_AI_RESPONSE_MODEL] = answered_by
        if event.response_id:
            attributes[gen_ai.GEN_AI_RESPONSE_ID] = event.response_id
        if usage.cached_input_tokens:
            attributes[gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cached_input_tokens
        if usage.reasoning_tokens:
            attributes[gen_ai.GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoning_tokens
        if event.first_delta is not None:
            attributes[gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = event.first_delta
        span.set_attributes(attributes)
        span.end()
        self._runs.settle(event.run_id, run)
        self._metrics.answered(
            metric_attributes, event.duration, usage.input_tokens, usage.output_tokens
        )

    def request_failed(self, event: ModelRequestFailed) -> None:
        run = self._runs.get(event.run_id)
        request = None if run is None else run.requests.pop(event.turn, None)
        if run is None or request is None:
            return
        self._fail(request.span, event.error)
        request.span.end()
        self._runs.settle(event.run_id, run)
        self._metrics.failed(request.metric_attributes, event.duration, error_type(event.error))

    # -- the caller's approvals and the output's retries ----------------------------------

    def confirmation_requested(self, event: ConfirmationRequested) -> None:
        run = self._runs.get(event.run_id)
        if run is None:
            return
        attributes: Attributes = {
            gen_ai.GEN_AI_TOOL_NAME: event.name,
            gen_ai.GEN_AI_TOOL_CALL_ID: event.call_id,
        }
        if self._capture:
            attributes[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS] = content.arguments_json(event.params)
        run.agent.add_event(EVENT_CONFIRMATION_REQUESTED, attributes)

    def confirmation_resolved(self, event: ConfirmationResolved) -> None:
        run = self._runs.get_or_hold(event.run_id, event)
        if run is None:
            return
        attributes: Attributes = {
            gen_ai.GEN_AI_TOOL_NAME: event.name,
            gen_ai.GEN_AI_TOOL_CALL_ID: event.call_id,
            AFFORDANCE_APPROVED: event.approved,
        }
        if self._capture and event.message:
            attributes[AFFORDANCE_MESSAGE] = event.message
        run.agent.add_event(EVENT_CONFIRMATION_RESOLVED, attributes)

    def output_retried(self, event: OutputRetried) -> None:
        run = self._runs.get(event.run_id)
        if run is None:
            return
        attributes: Attributes = {AFFORDANCE_TURN: event.turn, AFFORDANCE_ATTEMPT: event.attempt}
        if self._capture:
            attributes[AFFORDANCE_PROBLEMS] = event.problems
        run.agent.add_event(EVENT_OUTPUT_RETRY, attributes)

    # -- failures ---------------------------------------------------------------------------

    def _fail(self, span: Span, error: BaseException) -> None:
        """Mark ``span`` failed with ``error``: its type always; its message and traceback
        (an ``exception`` event) only with content capture, as a message may quote content."""
        kind = error_type(error)
        span.set_attribute(ERROR_TYPE, kind)
        span.set_status(Status(StatusCode.ERROR, kind))
        if self._capture:
            span.record_exception(error)
