"""What happens inside a run becomes span events: a tool's retries and timeouts, a cache hit, a
call the policy refused, confirmations asked and answered, an output sent back for another
try, sections the model opened, a fallback's switch to the next model."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from drivers import DRIVERS, run
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.trace import StatusCode
from otel_support import EchoParams, Telemetry, canary_prompt

from affordance import (
    AllowList,
    MarkdownSection,
    PromptEvaluationError,
    PromptTemplate,
    RetryPolicy,
    SectionVisibility,
    Tool,
    ToolError,
    ToolExecutor,
    ToolResult,
    approve,
    deny,
)
from affordance.runtime.loop import FallbackAdapter
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

ERROR_TYPE = error_attributes.ERROR_TYPE


def events(span: ReadableSpan) -> list[tuple[str, dict[str, object]]]:
    return [(event.name, dict(event.attributes or {})) for event in span.events]


def flaky() -> Tool[EchoParams, str]:
    attempts: list[int] = []

    def handler(params: EchoParams) -> ToolResult[str]:
        attempts.append(1)
        if len(attempts) < 3:
            raise ToolError("BUSY", "try again", retryable=True)
        return ToolResult.ok("fine")

    retry = RetryPolicy(max_attempts=3, base_delay=0.0, jitter=0.0)
    return Tool[EchoParams, str](name="flaky", description="Flaky.", handler=handler, retry=retry)


@pytest.mark.parametrize("driver", DRIVERS)
def test_each_retry_of_a_tool_is_an_event_on_its_span(driver, telemetry: Telemetry):
    adapter = ScriptedAdapter([tool_calls(tool_call("flaky", {"text": "a"})), text("ok")])
    run(adapter, canary_prompt(flaky()), driver)
    span = telemetry.span("execute_tool flaky")
    assert events(span) == [
        ("affordance.tool.retry", {"affordance.tool.attempt": 1, ERROR_TYPE: "BUSY"}),
        ("affordance.tool.retry", {"affordance.tool.attempt": 2, ERROR_TYPE: "BUSY"}),
    ]
    assert (span.attributes or {})["affordance.tool.attempts"] == 3
    assert span.status.status_code is StatusCode.UNSET  # the third attempt succeeded


def slow(params: EchoParams) -> ToolResult[str]:
    time.sleep(0.5)
    return ToolResult.ok("late")


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_tool_timeout_is_an_event_and_the_calls_error_type(driver, telemetry: Telemetry):
    tool = Tool[EchoParams, str](name="slow", description="Slow.", handler=slow, timeout=0.05)
    adapter = ScriptedAdapter([tool_calls(tool_call("slow", {"text": "a"})), text("ok")])
    run(adapter, canary_prompt(tool), driver)
    span = telemetry.span("execute_tool slow")
    assert events(span) == [
        ("affordance.tool.timeout", {"affordance.tool.attempt": 1, ERROR_TYPE: "timeout"})
    ]
    assert (span.attributes or {})[ERROR_TYPE] == "timeout"
    assert span.status.status_code is StatusCode.ERROR


def test_a_failing_handler_marks_its_span_with_its_code(telemetry: Telemetry):
    def broken(params: EchoParams) -> ToolResult[str]:
        raise ValueError("nope")

    tool = Tool[EchoParams, str](name="broken", description="Broken.", handler=broken)
    ScriptedAdapter([tool_calls(tool_call("broken", {"text": "a"})), text("ok")]).evaluate(
        canary_prompt(tool)
    )
    span = telemetry.span("execute_tool broken")
    assert (span.attributes or {})[ERROR_TYPE] == "ValueError"
    assert span.status.status_code is StatusCode.ERROR


def test_a_cache_hit_is_an_event_on_a_span_of_its_own(telemetry: Telemetry):
    tool = Tool[EchoParams, str](
        name="cached",
        description="Cached.",
        handler=lambda params: ToolResult.ok("value"),
        cache_ttl=60.0,
    )
    executor = ToolExecutor()
    for call_id in ("first", "second"):
        adapter = ScriptedAdapter(
            [tool_calls(tool_call("cached", {"text": "a"}, call_id=call_id)), text("ok")],
            executor=executor,
        )
        adapter.evaluate(canary_prompt(tool))
    first, second = sorted(
        telemetry.named("execute_tool cached"), key=lambda span: span.start_time or 0
    )
    assert events(first) == []
    assert events(second) == [("affordance.tool.cache_hit", {})]
    assert (second.attributes or {})["affordance.tool.cached"] is True
    assert (second.attributes or {})[gen_ai.GEN_AI_TOOL_CALL_ID] == "second"
    assert second.parent is not None


def test_a_call_the_policy_refuses_is_an_event_on_the_run_and_a_failed_tool_span(
    telemetry: Telemetry,
):
    executor = ToolExecutor(policy=AllowList(frozenset({"echo"})))
    other = Tool[EchoParams, str](
        name="other", description="Other.", handler=lambda p: ToolResult.ok("x")
    )
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("other", {"text": "a"}, call_id="o1")), text("ok")],
        executor=executor,
    )
    adapter.evaluate(canary_prompt(other))
    agent = telemetry.span("invoke_agent canary")
    ((name, attributes),) = events(agent)
    assert name == "affordance.tool.denied"
    assert attributes[gen_ai.GEN_AI_TOOL_NAME] == "other"
    assert attributes[gen_ai.GEN_AI_TOOL_CALL_ID] == "o1"
    assert attributes["affordance.reason"]
    span = telemetry.span("execute_tool other")
    assert (span.attributes or {})[ERROR_TYPE] == "denied"


def wipe(params: EchoParams) -> ToolResult[str]:
    return ToolResult.ok("wiped")


@pytest.mark.parametrize("answer", [approve(), deny("not today")], ids=["approved", "denied"])
def test_confirmations_asked_and_answered_are_events_on_the_two_runs(answer, telemetry: Telemetry):
    tool = Tool[EchoParams, str](name="wipe", description="W.", handler=wipe, destructive=True)
    prompt = canary_prompt(tool)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("wipe", {"text": "a"}, call_id="w1")), text("done")]
    )
    first = adapter.evaluate(prompt)
    adapter.evaluate(prompt, session=first.session, confirmations={"w1": answer})
    asked, resumed = sorted(
        telemetry.named("invoke_agent canary"), key=lambda span: span.start_time or 0
    )
    assert events(asked) == [
        (
            "affordance.confirmation.requested",
            {gen_ai.GEN_AI_TOOL_NAME: "wipe", gen_ai.GEN_AI_TOOL_CALL_ID: "w1"},
        )
    ]
    assert (asked.attributes or {})["affordance.run.pending_confirmations"] == 1
    assert (resumed.attributes or {})["affordance.run.resumed"] is True
    assert events(resumed) == [
        (
            "affordance.confirmation.resolved",
            {
                gen_ai.GEN_AI_TOOL_NAME: "wipe",
                gen_ai.GEN_AI_TOOL_CALL_ID: "w1",
                "affordance.confirmation.approved": answer.approved,
            },
        )
    ]
    (tool_span,) = telemetry.named("execute_tool wipe")
    assert tool_span.parent is not None
    assert tool_span.parent.span_id == resumed.context.span_id
    if not answer.approved:
        assert (tool_span.attributes or {})[ERROR_TYPE] == "_OTHER"


@dataclass(frozen=True)
class Verdict:
    label: str


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_output_sent_back_for_another_try_is_an_event_on_the_run(driver, telemetry: Telemetry):
    prompt = PromptTemplate[Verdict](
        name="verdict", sections=[MarkdownSection(title="Task", template="Classify.")]
    )
    adapter = ScriptedAdapter([text("it is ham"), text('{"label": "ham"}')])
    run(adapter, prompt, driver)
    agent = telemetry.span("invoke_agent verdict")
    assert events(agent) == [
        ("affordance.output.retry", {"affordance.turn": 1, "affordance.tool.attempt": 1})
    ]
    assert len(telemetry.named("chat")) == 2


def test_sections_the_model_opens_are_an_event_on_the_run(telemetry: Telemetry):
    prompt = PromptTemplate(
        name="disclosure",
        sections=[
            MarkdownSection(title="Task", key="task", template="Work."),
            MarkdownSection(
                title="Context",
                key="context",
                template="All about it.",
                summary="Context, summarized.",
                visibility=SectionVisibility.SUMMARY,
            ),
        ],
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["context"], "reason": "r"})),
            text("ok"),
        ]
    )
    adapter.evaluate(prompt)
    agent = telemetry.span("invoke_agent disclosure")
    ((name, attributes),) = events(agent)
    assert name == "affordance.sections.opened"
    assert attributes["affordance.sections"] == ("context",)
    assert "affordance.reason" not in attributes  # the model's reason is content
    refused = ScriptedAdapter(
        [
            tool_calls(tool_call("open_sections", {"section_keys": ["nope"], "reason": "r"})),
            text("ok"),
        ]
    )
    refused.evaluate(prompt)
    second = max(telemetry.named("invoke_agent disclosure"), key=lambda s: s.start_time or 0)
    assert events(second) == []  # a request refused opened nothing


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_fallbacks_switch_is_an_event_on_the_run(driver, telemetry: Telemetry):
    limited = PromptEvaluationError("rate limited", provider="scripted", status=429, transient=True)
    adapter = FallbackAdapter(ScriptedAdapter([limited]), ScriptedAdapter([text("ok")]))
    run(adapter, canary_prompt(), driver)
    agent = telemetry.span("invoke_agent canary")
    ((name, attributes),) = events(agent)
    assert name == "affordance.model.switched"
    assert attributes["affordance.turn"] == 1
    assert attributes["affordance.fallback.failed_provider"] == "scripted"
    assert attributes["affordance.fallback.status"] == 429
    assert (agent.attributes or {})[gen_ai.GEN_AI_PROVIDER_NAME] == "fallback"
    (chat,) = telemetry.named("chat")  # the request went out once, and the next model answered
    assert (chat.attributes or {})[gen_ai.GEN_AI_PROVIDER_NAME] == "scripted"
