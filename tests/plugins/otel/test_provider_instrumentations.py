"""No double counting beside the providers' own instrumentations
(``opentelemetry-instrumentation-openai-v2``, ``opentelemetry-instrumentation-google-genai``).

They wrap the SDKs' typed methods (``Completions.create``, ``Models.generate_content``); the
provider plugins send through the SDK clients' lower-level request methods, so with both
instrumentations on, each request affordance makes still has exactly one span — its ``chat``
(``generate_content``) span — and one set of metric points. What a tool handler sends through
the SDK itself gets their span, nested under the call's ``execute_tool`` span: both
instrumentations are really on in these tests, and their spans land in the same tree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from loopback import (
    CHAT_COMPLETIONS_PATH,
    JsonReply,
    LoopbackServer,
    chat_text,
    chat_tool_calls,
    generate_path,
    google_function_calls,
    google_server,
    google_text,
    openai_server,
)
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from otel_support import Telemetry

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance_openai import OpenAIAdapter

# the instrumentations, and the Google side, are installed in the workspace's environment (see
# requirements-dev.txt), not in the otel-only tox environment
openai_v2 = pytest.importorskip("opentelemetry.instrumentation.openai_v2")
google_genai_instrumentation = pytest.importorskip("opentelemetry.instrumentation.google_genai")
genai = pytest.importorskip("google.genai")
GoogleAdapter = pytest.importorskip("affordance_google").GoogleAdapter

OURS = "affordance_otel"


def prompt_with(handler: Any) -> PromptTemplate[None]:
    """A prompt whose one tool, ``ask``, runs ``handler`` (which calls the SDK itself)."""
    tool = Tool[None, str](name="ask", description="Ask the model directly.", handler=handler)
    return PromptTemplate(
        name="nesting", sections=[MarkdownSection(title="Task", template="Go.", tools=[tool])]
    )


def scope_of(span: ReadableSpan) -> str:
    scope = span.instrumentation_scope
    return "" if scope is None else scope.name


def check_one_span_per_request(telemetry: Telemetry, our_name: str) -> None:
    """Two model requests of the run: two spans of ours, none of theirs beside them; the one
    request the handler made: their span, under the call's span."""
    spans = telemetry.spans()
    ours = [span for span in spans if scope_of(span) == OURS and span.name == our_name]
    assert len(ours) == 2
    agent = telemetry.span("invoke_agent nesting")
    tool = telemetry.span("execute_tool ask")
    theirs = [span for span in spans if scope_of(span) != OURS]
    assert len(theirs) == 1, [(span.name, scope_of(span)) for span in theirs]
    (direct,) = theirs
    assert direct.parent is not None
    assert direct.parent.span_id == tool.context.span_id
    assert {span.context.trace_id for span in spans} == {agent.context.trace_id}
    points = telemetry.points(gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION)
    assert sum(point.count for point in points) == 3  # two requests of ours, one of theirs


@pytest.fixture
def openai_loopback() -> Iterator[LoopbackServer]:
    with openai_server() as server:
        yield server


@pytest.fixture
def google_loopback() -> Iterator[LoopbackServer]:
    with google_server() as server:
        yield server


def test_beside_the_openai_v2_instrumentation_each_request_has_one_span(
    openai_loopback: LoopbackServer, telemetry: Telemetry
):
    instrumentor = openai_v2.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=telemetry.provider, meter_provider=telemetry.meters)
    try:
        openai_loopback.script(
            CHAT_COMPLETIONS_PATH,
            chat_tool_calls([("c1", "ask", {})]),
            chat_text("asked directly"),  # the handler's own request
            chat_text("Done."),
        )
        with openai.OpenAI(
            base_url=openai_loopback.base_url, api_key="test", max_retries=0
        ) as client:

            def ask(params: None) -> ToolResult[str]:
                reply = client.chat.completions.create(
                    model="gpt-test", messages=[{"role": "user", "content": "hi"}]
                )
                return ToolResult.ok(reply.choices[0].message.content or "")

            OpenAIAdapter("gpt-test", client=client, api="chat").evaluate(prompt_with(ask))
    finally:
        instrumentor.uninstrument()
    openai_loopback.assert_script_consumed()
    check_one_span_per_request(telemetry, "chat gpt-test")


def test_beside_the_google_genai_instrumentation_each_request_has_one_span(
    google_loopback: LoopbackServer, telemetry: Telemetry
):
    instrumentor = google_genai_instrumentation.GoogleGenAiSdkInstrumentor()
    instrumentor.instrument(
        tracer_provider=telemetry.provider,
        meter_provider=telemetry.meters,
        skip_dep_check=True,  # it declares google-genai<3; its wrappers work on 3.x
    )
    path = generate_path("gemini-test")
    try:
        google_loopback.script(
            path,
            JsonReply(google_function_calls([("ask", {})])),
            JsonReply(google_text("asked directly")),  # the handler's own request
            JsonReply(google_text("Done.")),
        )
        options = genai.types.HttpOptions(base_url=google_loopback.base_url, api_version="v1beta")
        client = genai.Client(api_key="test", http_options=options)
        try:

            def ask(params: None) -> ToolResult[str]:
                reply = client.models.generate_content(model="gemini-test", contents="hi")
                return ToolResult.ok(reply.text or "")

            GoogleAdapter("gemini-test", client=client).evaluate(prompt_with(ask))
        finally:
            client.close()
    finally:
        instrumentor.uninstrument()
    google_loopback.assert_script_consumed()
    check_one_span_per_request(telemetry, "generate_content gemini-test")
