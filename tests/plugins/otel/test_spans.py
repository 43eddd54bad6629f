"""The spans and metrics of runs on the offline (scripted) adapter, through the real SDK's
in-memory exporter and reader, on all four entry points: one ``invoke_agent`` span per run, a
``chat`` span per request and an ``execute_tool`` span per call under it, with the GenAI
attributes; the tool span current while the handler runs; failures as ``error.type``."""

from __future__ import annotations

import asyncio

import pytest
from drivers import DRIVERS, run
from opentelemetry import trace
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import SpanKind, StatusCode
from otel_support import CANARY, EchoParams, Telemetry, canary_prompt

from affordance import (
    MarkdownSection,
    PromptEvaluationError,
    PromptTemplate,
    PromptTool,
    Tool,
    ToolResult,
)
from affordance.adapters import Usage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

ERROR_TYPE = error_attributes.ERROR_TYPE


def echo_script(**answer: object) -> ScriptedAdapter:
    return ScriptedAdapter(
        [
            tool_calls(tool_call("echo", {"text": f"{CANARY}-args"}, call_id="call-echo")),
            text(f"Done {CANARY}-text", usage=Usage(30, 2, cached_input_tokens=8), **answer),
        ]
    )


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_run_is_one_agent_span_with_a_chat_span_per_request_and_a_tool_span_per_call(
    driver, telemetry: Telemetry
):
    response, _ = run(echo_script(), canary_prompt(), driver)
    agent = telemetry.span("invoke_agent canary")
    chats = telemetry.named("chat")
    tool = telemetry.span("execute_tool echo")
    assert [span.name for span in chats] == ["chat", "chat"]  # the scripted model has no name
    assert agent.parent is None
    assert all(span.parent is not None for span in (*chats, tool))
    assert {span.parent.span_id for span in (*chats, tool)} == {agent.context.span_id}  # type: ignore[union-attr]
    assert len({span.context.trace_id for span in telemetry.spans()}) == 1
    assert (agent.kind, tool.kind) == (SpanKind.INTERNAL, SpanKind.INTERNAL)
    assert {span.kind for span in chats} == {SpanKind.CLIENT}

    attributes = agent.attributes or {}
    assert attributes[gen_ai.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert attributes[gen_ai.GEN_AI_AGENT_NAME] == "canary"
    assert attributes[gen_ai.GEN_AI_PROMPT_NAME] == "canary"
    assert attributes["affordance.run.resumed"] is False
    assert attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "scripted"
    assert attributes["affordance.run.id"] == response.run_id
    assert attributes[gen_ai.GEN_AI_USAGE_INPUT_TOKENS] == response.usage.input_tokens
    assert attributes[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS] == response.usage.output_tokens
    assert attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)
    assert attributes[gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] == 8

    first, second = sorted(chats, key=lambda span: span.start_time or 0)
    assert (first.attributes or {})[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] == ("tool_calls",)
    last = second.attributes or {}
    assert last[gen_ai.GEN_AI_OPERATION_NAME] == "chat"
    assert last[gen_ai.GEN_AI_PROVIDER_NAME] == "scripted"
    assert (last["affordance.run.id"], last["affordance.turn"]) == (response.run_id, 2)
    assert (last[gen_ai.GEN_AI_USAGE_INPUT_TOKENS], last[gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS]) == (
        30,
        2,
    )
    assert last[gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] == 8
    assert last[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)
    streamed = driver in ("stream", "astream")
    assert last[gen_ai.GEN_AI_REQUEST_STREAM] is streamed
    if streamed:  # the chat span covers the stream, and says when its first piece came
        first_chunk = last[gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]
        assert isinstance(first_chunk, float)
        assert 0 <= first_chunk * 1e9 <= (second.end_time or 0) - (second.start_time or 0)
    else:
        assert gen_ai.GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK not in last

    called = tool.attributes or {}
    assert called[gen_ai.GEN_AI_OPERATION_NAME] == "execute_tool"
    assert called[gen_ai.GEN_AI_TOOL_NAME] == "echo"
    assert called[gen_ai.GEN_AI_TOOL_CALL_ID] == "call-echo"
    assert called[gen_ai.GEN_AI_TOOL_TYPE] == "function"
    assert called["affordance.run.id"] == (agent.attributes or {})["affordance.run.id"]
    assert called["affordance.turn"] == 1
    assert tool.status.status_code is StatusCode.UNSET
    assert first.end_time <= tool.start_time  # type: ignore[operator]
    assert tool.end_time <= second.start_time  # type: ignore[operator]


def test_a_model_that_names_no_response_id_or_model_leaves_them_out():
    # the scripted model answers with no response id and its connection has no model name:
    # the attributes are absent, not empty (test_openai.py checks them over HTTP)
    made = Telemetry()
    try:
        ScriptedAdapter([text("ok")]).evaluate(canary_prompt())
        (chat,) = made.named("chat")
        assert gen_ai.GEN_AI_RESPONSE_ID not in (chat.attributes or {})
        assert gen_ai.GEN_AI_RESPONSE_MODEL not in (chat.attributes or {})
    finally:
        made.close()


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_request_records_its_tokens_and_duration(driver, telemetry: Telemetry):
    run(echo_script(), canary_prompt(), driver)
    tokens = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE)
    by_type = {point.attributes[gen_ai.GEN_AI_TOKEN_TYPE]: point for point in tokens}
    assert set(by_type) == {"input", "output"}
    assert (by_type["input"].count, by_type["input"].sum) == (2, 10 + 30)
    assert (by_type["output"].count, by_type["output"].sum) == (2, 5 + 2)
    assert by_type["input"].attributes[gen_ai.GEN_AI_OPERATION_NAME] == "chat"
    assert by_type["input"].attributes[gen_ai.GEN_AI_PROVIDER_NAME] == "scripted"
    (duration,) = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION)
    assert duration.count == 2
    assert 0 <= duration.sum < 5
    assert ERROR_TYPE not in duration.attributes


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_failed_request_marks_its_chat_span_the_run_and_the_duration_metric(
    driver, telemetry: Telemetry
):
    failure = PromptEvaluationError(f"overloaded {CANARY}", provider="scripted", status=529)
    with pytest.raises(PromptEvaluationError):
        run(ScriptedAdapter([failure]), canary_prompt(), driver)
    agent = telemetry.span("invoke_agent canary")
    (chat,) = telemetry.named("chat")
    expected = "affordance.errors.PromptEvaluationError"
    for span in (agent, chat):
        assert (span.attributes or {})[ERROR_TYPE] == expected
        assert span.status.status_code is StatusCode.ERROR
        assert span.status.description == expected
        assert [event.name for event in span.events] == []  # no exception message by default
    (duration,) = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION)
    assert duration.attributes[ERROR_TYPE] == expected
    assert telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE) == []


TRACER = "tests.otel.handler"


def nesting_tool(telemetry: Telemetry, asynchronous: bool, timeout: float | None) -> Tool:
    """A tool whose handler makes a span of its own, from the current context."""
    tracer = telemetry.provider.get_tracer(TRACER)

    def inside(params: EchoParams) -> ToolResult[str]:
        with tracer.start_as_current_span("inside the handler"):
            return ToolResult.ok("made a span")

    async def ainside(params: EchoParams) -> ToolResult[str]:
        await asyncio.sleep(0)
        return inside(params)

    handler = ainside if asynchronous else inside
    return Tool[EchoParams, str](
        name="nesting", description="Makes a span.", handler=handler, timeout=timeout
    )


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize(
    ("asynchronous", "timeout"),
    [(False, None), (False, 5.0), (True, None), (True, 5.0)],
    ids=["def", "def-timeout", "async-def", "async-def-timeout"],
)
def test_the_tool_span_is_current_while_the_handler_runs(
    driver, asynchronous, timeout, telemetry: Telemetry
):
    tool = nesting_tool(telemetry, asynchronous, timeout)
    calls = [tool_call("nesting", {"text": "a"}), tool_call("nesting", {"text": "b"})]
    run(ScriptedAdapter([tool_calls(*calls), text("ok")]), canary_prompt(tool), driver)
    tool_spans = {span.context.span_id for span in telemetry.named("execute_tool nesting")}
    inner = telemetry.named("inside the handler")
    assert len(tool_spans) == 2
    assert len(inner) == 2
    assert {span.parent.span_id for span in inner} == tool_spans  # type: ignore[union-attr]
    assert trace.get_current_span() is trace.INVALID_SPAN  # nothing left current after the run


def test_a_run_inside_an_application_span_is_its_child(telemetry: Telemetry):
    tracer = telemetry.provider.get_tracer(TRACER)
    with tracer.start_as_current_span("request handler") as outer:
        ScriptedAdapter([text("ok")]).evaluate(canary_prompt())
    agent = telemetry.span("invoke_agent canary")
    assert agent.parent is not None
    assert agent.parent.span_id == outer.get_span_context().span_id


def test_runs_on_threads_at_once_each_get_their_own_tree(telemetry: Telemetry):
    import concurrent.futures

    def one(_: int) -> str:
        return echo_script().evaluate(canary_prompt()).run_id

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        run_ids = list(pool.map(one, range(8)))
    agents = telemetry.named("invoke_agent")
    assert sorted((a.attributes or {})["affordance.run.id"] for a in agents) == sorted(run_ids)
    for agent in agents:
        children = [
            s for s in telemetry.spans() if s.parent and s.parent.span_id == agent.context.span_id
        ]
        assert sorted(s.name for s in children) == ["chat", "chat", "execute_tool echo"]


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_prompt_run_as_a_tool_is_an_agent_span_under_the_calls_span(driver, telemetry: Telemetry):
    inner = PromptTemplate(
        name="research", sections=[MarkdownSection(title="Task", template="Research it.")]
    )
    tool = PromptTool(inner, name="research", description="Research.")
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("research", {"request": "look"})), text("found"), text("done")]
    )
    run(adapter, canary_prompt(tool), driver)
    outer = telemetry.span("invoke_agent canary")
    call = telemetry.span("execute_tool research")
    nested = telemetry.span("invoke_agent research")
    assert call.parent is not None
    assert call.parent.span_id == outer.context.span_id
    assert nested.parent is not None
    assert nested.parent.span_id == call.context.span_id
    (nested_chat,) = [
        span
        for span in telemetry.named("chat")
        if span.parent is not None and span.parent.span_id == nested.context.span_id
    ]
    assert (nested_chat.attributes or {})[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)


def test_a_stream_left_early_ends_its_spans_marked_by_how_it_ended(telemetry: Telemetry):
    adapter = echo_script()
    with adapter.stream(canary_prompt()) as stream:
        next(iter(stream))  # RunStarted, then the consumer leaves
    agent = telemetry.span("invoke_agent canary")
    assert (agent.attributes or {})[ERROR_TYPE] == "GeneratorExit"
    assert agent.status.status_code is StatusCode.ERROR
    assert all(span.end_time is not None for span in telemetry.spans())
