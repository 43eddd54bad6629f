"""Metadata only by default: a canary placed in the prompt, the tool's arguments, its result and
the model's text reaches no exported name, attribute, event or status — on any entry point, for
a failing run too. With ``capture_content=True`` each of them is exported, in the GenAI
conventions' JSON shapes."""

from __future__ import annotations

import json

import pytest
from drivers import DRIVERS, run
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from otel_support import CANARY, EchoParams, Telemetry, canary_prompt, exported_text

from affordance import PromptEvaluationError, Tool, ToolError, ToolResult, deny
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

PIECES = ("prompt", "args", "result", "text")


def script() -> ScriptedAdapter:
    return ScriptedAdapter(
        [
            tool_calls(tool_call("echo", {"text": f"{CANARY}-args"}, call_id="c1")),
            text(f"Done {CANARY}-text"),
        ]
    )


def failing(params: EchoParams) -> ToolResult[str]:
    raise ToolError("BROKEN", f"broken by {CANARY}-error")


def destructive(params: EchoParams) -> ToolResult[str]:
    return ToolResult.ok("gone")


@pytest.mark.parametrize("driver", DRIVERS)
def test_no_content_is_exported_by_default(driver, telemetry: Telemetry):
    response, _ = run(script(), canary_prompt(), driver)
    assert CANARY in response.text  # the canary is really there, in every piece
    assert len(telemetry.spans()) == 4
    assert CANARY not in exported_text(telemetry.spans())
    assert CANARY not in (telemetry.reader.get_metrics_data() or "").__repr__()


def test_no_content_is_exported_from_failures_or_confirmations(
    telemetry: Telemetry,
):
    tools = (
        Tool[EchoParams, str](name="failing", description="Fails.", handler=failing),
        Tool[EchoParams, str](
            name="wipe", description="Wipes.", handler=destructive, destructive=True
        ),
    )
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("failing", {"text": f"{CANARY}-args"}),
                tool_call("wipe", {"text": f"{CANARY}-args"}, call_id="wipe-1"),
            ),
            text(f"Sorry {CANARY}-text"),
        ]
    )
    prompt = canary_prompt(*tools)
    first = adapter.evaluate(prompt)
    assert first.pending_confirmations
    adapter.evaluate(
        prompt,
        session=first.session,
        confirmations={"wipe-1": deny(f"no, {CANARY}-denial")},
    )
    failure = PromptEvaluationError(f"the provider said {CANARY}", provider="scripted")
    with pytest.raises(PromptEvaluationError):
        ScriptedAdapter([failure]).evaluate(canary_prompt())
    names = {span.name for span in telemetry.spans()}
    assert {"execute_tool failing", "execute_tool wipe", "invoke_agent canary"} <= names
    assert CANARY not in exported_text(telemetry.spans())


@pytest.mark.parametrize("driver", DRIVERS)
def test_captured_content_is_exported_in_the_conventions_json_shapes(
    driver, telemetry_with_content: Telemetry
):
    run(script(), canary_prompt(), driver)
    exported = exported_text(telemetry_with_content.spans())
    assert all(f"{CANARY}-{piece}" in exported for piece in PIECES)

    agent = telemetry_with_content.span("invoke_agent canary").attributes or {}
    inputs = json.loads(str(agent[gen_ai.GEN_AI_INPUT_MESSAGES]))
    assert [message["role"] for message in inputs] == ["user", "assistant", "tool"]
    assert inputs[0]["parts"] == [{"type": "text", "content": f"## 1 Task\nSay {CANARY}-prompt."}]
    assert inputs[1]["parts"] == [
        {"type": "tool_call", "id": "c1", "name": "echo", "arguments": {"text": f"{CANARY}-args"}}
    ]
    (response_part,) = inputs[2]["parts"]
    assert response_part["type"] == "tool_call_response"
    assert response_part["id"] == "c1"
    assert f"{CANARY}-result" in response_part["response"]
    outputs = json.loads(str(agent[gen_ai.GEN_AI_OUTPUT_MESSAGES]))
    assert outputs == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": f"Done {CANARY}-text"}],
            "finish_reason": "stop",
        }
    ]

    tool = telemetry_with_content.span("execute_tool echo").attributes or {}
    assert json.loads(str(tool[gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS])) == {"text": f"{CANARY}-args"}
    assert json.loads(str(tool[gen_ai.GEN_AI_TOOL_CALL_RESULT])) == (
        f"echoed {CANARY}-args {CANARY}-result"
    )


def test_captured_content_includes_a_failures_message(telemetry_with_content: Telemetry):
    failure = PromptEvaluationError(f"the provider said {CANARY}", provider="scripted")
    with pytest.raises(PromptEvaluationError):
        ScriptedAdapter([failure]).evaluate(canary_prompt())
    agent = telemetry_with_content.span("invoke_agent canary")
    (exception,) = [event for event in agent.events if event.name == "exception"]
    assert CANARY in str((exception.attributes or {})["exception.message"])
