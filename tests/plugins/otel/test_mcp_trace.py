"""MCP calls carry the trace context in ``params._meta``, under the W3C keys the MCP
specification reserves there (SEP-414: ``traceparent``, ``tracestate``).

Client side: an ``MCPSection`` call sends its ``execute_tool`` span to a real server subprocess
that answers the ``_meta`` it received; nothing is sent with the instrumentor off; with a global
tracer provider, the ``mcp`` SDK's own request span sits between the two, in the same trace.
Server side: a prompt served with ``server_for`` and called by the official client in-process
continues the trace the client sends, with or without the SDK's OpenTelemetry middleware; a
hostile ``_meta`` fails nothing and joins nothing.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import anyio
import pytest

pytest.importorskip("affordance_mcp")  # the otel-only tox environment has no affordance-mcp

import mcp
from opentelemetry import propagate
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.sdk.trace import ReadableSpan
from otel_support import Telemetry, canary_prompt

from affordance import MarkdownSection, PromptTemplate
from affordance.runtime import joined_trace, trace_carrier
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import MCPSection
from affordance_mcp.serving import server_for

TRACE_ID = 0x4BF92F3577B34DA6A3CE929D0E0E4736
PARENT_ID = 0x00F067AA0BA902B7
TRACEPARENT = f"00-{TRACE_ID:032x}-{PARENT_ID:016x}-01"
TRACE_KEYS = {"traceparent", "tracestate", "baggage"}
"""The keys SEP-414 reserves in ``_meta`` (affordance sends the first two)."""

WAIT = 20.0
"""The most a test waits for a run or a served call."""

ECHO_META_SERVER = textwrap.dedent(
    '''
    """An MCP server on the SDK's low-level Server (stdio) whose one tool, echo_meta, answers
    the _meta of its request as JSON."""
    import json

    import anyio
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool, ToolAnnotations

    ECHO_META = Tool(
        name="echo_meta",
        description="Answers the _meta of its request, as JSON.",
        input_schema={"type": "object", "properties": {}},
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=False),
    )


    async def list_tools(ctx, params):
        return ListToolsResult(tools=[ECHO_META])


    async def call_tool(ctx, params):
        meta = json.dumps(params.meta or {}, default=str)
        return CallToolResult(content=[TextContent(type="text", text=meta)])


    async def main():
        server = Server("echo-meta", on_list_tools=list_tools, on_call_tool=call_tool)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


    anyio.run(main)
    '''
)


def echo_meta_section() -> MCPSection:
    """A section on a new ``echo_meta`` server subprocess (close it: ``with``/``async with``)."""
    return MCPSection.stdio(
        sys.executable,
        ("-c", ECHO_META_SERVER),
        title="Echo",
        connect_timeout=5.0,
        call_timeout=10.0,
    )


def prompt_with(section: MCPSection) -> PromptTemplate[None]:
    return PromptTemplate(
        name="mcp-trace",
        sections=[MarkdownSection(title="Task", template="Call echo_meta."), section],
    )


def script() -> ScriptedAdapter:
    return ScriptedAdapter([tool_calls(tool_call("echo_meta", {})), text("done")])


def received_meta(response: Any) -> dict[str, Any]:
    """The ``_meta`` the server received, from the run's one tool result."""
    (called,) = response.tool_results
    assert called.result.success, called.result.message
    meta = json.loads(called.result.value.text)
    assert isinstance(meta, dict)
    return meta


def run_on_the_shared_loop() -> dict[str, Any]:
    """``evaluate``: the session lives on affordance-mcp's own loop, in another thread."""
    with echo_meta_section() as section:
        return received_meta(script().evaluate(prompt_with(section)))


def run_on_the_callers_loop() -> dict[str, Any]:
    """``aevaluate`` after ``async with``: the session lives on the caller's loop."""

    async def body() -> dict[str, Any]:
        async with echo_meta_section() as section:
            return received_meta(await script().aevaluate(prompt_with(section)))

    async def bounded() -> dict[str, Any]:
        return await asyncio.wait_for(body(), WAIT)

    return asyncio.run(bounded())


RUNS = {"shared-loop": run_on_the_shared_loop, "callers-loop": run_on_the_callers_loop}


def traceparent_of(span: ReadableSpan) -> str:
    context = span.get_span_context()
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"


# -- client side: MCPSection ----------------------------------------------------------------


@pytest.mark.parametrize("run", RUNS.values(), ids=RUNS.keys())
def test_a_call_sends_its_execute_tool_span_as_the_traceparent(
    run: Callable[[], dict[str, Any]], telemetry: Telemetry
):
    meta = run()

    call = telemetry.span("execute_tool echo_meta")
    agent = telemetry.span("invoke_agent mcp-trace")
    assert meta["traceparent"] == traceparent_of(call)  # its trace id, and it as the parent
    assert call.context.trace_id == agent.context.trace_id
    assert "tracestate" not in meta  # the trace has none


def test_the_trace_state_goes_along_when_there_is_one(telemetry: Telemetry):
    """A run that joined a carried trace with a ``tracestate`` hands both keys on."""
    with joined_trace({"traceparent": TRACEPARENT, "tracestate": "vendor=value"}):
        meta = run_on_the_shared_loop()

    call = telemetry.span("execute_tool echo_meta")
    assert call.context.trace_id == TRACE_ID
    assert meta["traceparent"] == traceparent_of(call)
    assert meta["tracestate"] == "vendor=value"


def test_the_traceparent_is_sent_whatever_the_global_propagator(telemetry: Telemetry):
    """The ``mcp`` SDK writes ``_meta`` with OpenTelemetry's global propagator too
    (``OTEL_PROPAGATORS``); one that writes no W3C keys still leaves affordance's."""
    before = propagate.get_global_textmap()
    propagate.set_global_textmap(CompositePropagator([]))
    try:
        meta = run_on_the_shared_loop()
    finally:
        propagate.set_global_textmap(before)

    assert meta["traceparent"] == traceparent_of(telemetry.span("execute_tool echo_meta"))


@pytest.mark.parametrize("run", RUNS.values(), ids=RUNS.keys())
def test_with_the_instrumentor_off_no_trace_keys_are_sent(run: Callable[[], dict[str, Any]]):
    assert trace_carrier() == {}  # no tracing plugin on

    meta = run()

    assert not TRACE_KEYS & meta.keys()
    # what is left is the SDK's own envelope (2026-07-28), as before
    assert all(key.startswith("io.modelcontextprotocol/") for key in meta), meta


GLOBAL_PROVIDER_RUN = """
    import json
    import sys

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from affordance import MarkdownSection, PromptTemplate
    from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
    from affordance_mcp import MCPSection
    from affordance_otel import AffordanceInstrumentor

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # the mcp SDK's own spans now record too
    AffordanceInstrumentor().instrument()

    section = MCPSection.stdio(sys.executable, ("-c", sys.argv[1]), title="Echo")
    prompt = PromptTemplate(name="p", sections=[MarkdownSection(title="T", template="x"), section])
    adapter = ScriptedAdapter([tool_calls(tool_call("echo_meta", {})), text("done")])
    with section:
        (called,) = adapter.evaluate(prompt).tool_results
    spans = {
        span.name: [f"{span.context.trace_id:032x}", f"{span.context.span_id:016x}",
                    f"{span.parent.span_id:016x}" if span.parent else None]
        for span in exporter.get_finished_spans()
    }
    print(json.dumps({"meta": json.loads(called.result.value.text), "spans": spans}))
"""


def test_with_a_global_tracer_provider_the_sdks_request_span_sits_between(tmp_path: Any):
    """The ``mcp`` SDK opens a span of its own around a request (SEP-414 in the SDK) and writes
    it into ``_meta`` over what it was given. The caller's context reaches the connection's
    loop (``run_coroutine_threadsafe`` runs the call in a copy of it), so that span is the
    call's child and the server still lands in the caller's trace, one level down."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(GLOBAL_PROVIDER_RUN), ECHO_META_SERVER],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    spans = found["spans"]
    trace_id, call_id, _ = spans["execute_tool echo_meta"]
    sdk_trace_id, sdk_id, sdk_parent = spans["MCP send tools/call echo_meta"]

    assert (sdk_trace_id, sdk_parent) == (trace_id, call_id)
    version, sent_trace_id, sent_parent, _flags = found["meta"]["traceparent"].split("-")
    assert (version, sent_trace_id, sent_parent) == ("00", trace_id, sdk_id)


# -- server side: server_for ------------------------------------------------------------------


def serve_calls(
    *metas: Any,
    mode: str = "auto",
    sdk_middleware: bool = True,
    around: Callable[[], Any] | None = None,
) -> list[Any]:
    """Call the canary prompt's ``echo`` once per ``_meta`` in ``metas``, through the official
    client in-process; ``around`` is a context manager the server and client run in."""
    results: list[Any] = []

    async def calls() -> None:
        server = server_for(canary_prompt())
        if not sdk_middleware:
            server.middleware.clear()  # the SDK's OpenTelemetryMiddleware reads _meta too
        async with mcp.Client(server, mode=mode) as client:
            results.extend([await client.call_tool("echo", {"text": "a"}, meta=m) for m in metas])

    async def test() -> None:
        with anyio.fail_after(WAIT):
            if around is None:
                await calls()
            else:
                with around():
                    await calls()

    anyio.run(test)
    return results


def answered(result: Any) -> str:
    assert not result.is_error
    (block,) = result.content
    return str(block.text)


@pytest.mark.parametrize("sdk_middleware", [True, False], ids=["sdk-middleware", "no-middleware"])
@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_served_call_continues_the_trace_its_client_sends(
    mode: str, sdk_middleware: bool, telemetry: Telemetry
):
    (result,) = serve_calls({"traceparent": TRACEPARENT}, mode=mode, sdk_middleware=sdk_middleware)

    assert answered(result).startswith("echoed a ")
    call = telemetry.span("execute_tool echo")
    assert call.context.trace_id == TRACE_ID
    assert call.parent is not None
    assert call.parent.span_id == PARENT_ID
    assert call.parent.is_remote
    assert (call.attributes or {})["gen_ai.tool.name"] == "echo"


HOSTILE_METAS = [
    {"traceparent": 5},
    {"traceparent": "x" * 10_000},
    {"traceparent": [["00", TRACEPARENT]]},
    {"traceparent": {"nested": [TRACEPARENT]}},
    {"traceparent": "00-not-hex-01"},
    {"tracestate": "vendor=value"},
]
HOSTILE_IDS = ["number", "huge", "nested-list", "object", "malformed", "state-only"]


@pytest.mark.parametrize("meta", HOSTILE_METAS, ids=HOSTILE_IDS)
def test_a_hostile_meta_fails_nothing_and_the_call_stays_in_the_servers_trace(
    meta: Any, telemetry: Telemetry
):
    """The server runs in a trace of its own (a span current around it): a served call nests
    there, as if no ``_meta`` had come."""
    tracer = telemetry.provider.get_tracer("test")

    (result,) = serve_calls(meta, around=lambda: tracer.start_as_current_span("server"))

    assert answered(result).startswith("echoed a ")
    server = telemetry.span("server")
    call = telemetry.span("execute_tool echo")
    assert call.context.trace_id == server.context.trace_id
    assert call.parent is not None
    assert call.parent.span_id == server.context.span_id
    assert all(span.context.trace_id != TRACE_ID for span in telemetry.spans())


@pytest.mark.parametrize("meta", HOSTILE_METAS, ids=HOSTILE_IDS)
def test_a_hostile_meta_joins_nothing_and_a_good_one_after_it_still_joins(
    meta: Any, telemetry: Telemetry
):
    """Without the SDK's middleware, only affordance reads ``_meta``: a hostile one is answered
    and joins no trace (its call's span is a root), and the next call's good one is joined."""
    hostile, good = serve_calls(meta, {"traceparent": TRACEPARENT}, sdk_middleware=False)

    assert answered(hostile).startswith("echoed a ")
    assert answered(good).startswith("echoed a ")
    first, call = sorted(telemetry.named("execute_tool"), key=lambda span: span.start_time or 0)
    assert first.parent is None
    assert first.context.trace_id != TRACE_ID
    assert call.context.trace_id == TRACE_ID
    assert call.parent is not None
    assert call.parent.span_id == PARENT_ID
