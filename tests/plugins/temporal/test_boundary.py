"""The serialization boundary: every envelope that crosses it round-trips through JSON text,
prompts travel by reference, and tool results come back typed — or, when they cannot be,
render exactly as the worker rendered them."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import pytest
from durable_app import (
    PROMPT,
    Ledger,
    NoteParams,
    NoteRef,
    Saved,
    Task,
    make_adapter,
    make_registry,
)

from affordance import (
    MarkdownSection,
    OpenSectionsResult,
    PromptTemplate,
    SectionVisibility,
    Tool,
    ToolResult,
    approve,
)
from affordance.runtime.calls.failures import ToolErrorInfo
from affordance.runtime.model.messages import (
    AssistantMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.model.turn import ProviderTurn, Usage
from affordance.testing import comparable
from affordance_temporal import PromptRegistry, RegistryMismatchError, RunOptions
from affordance_temporal.boundary import (
    CallData,
    ConfirmationData,
    ModelAnswer,
    ModelCall,
    PendingData,
    PromptRef,
    ResultData,
    RunInput,
    RunResult,
    RunStatus,
    ToolAnswer,
    ToolCallInput,
    from_data,
    to_data,
)
from affordance_temporal.prompt_refs import decode_overrides, decode_params, prompt_ref
from affordance_temporal.results import (
    OpaqueValue,
    decode_response,
    decode_result,
    encode_response,
    encode_result,
)

CALLS = (ToolCall("c1", "add_note", '{"text": "milk"}'), ToolCall("c2", "x", {"a": [1, None]}))
MESSAGES = (
    UserMessage("hello"),
    AssistantMessage("thinking", CALLS, ({"type": "reasoning", "id": "r1"},)),
    ToolResultMessage("c1", "add_note", "note #1: milk"),
    ToolResultMessage("c2", "x", "boom", is_error=True),
    AssistantMessage(None),
)
TURN = ProviderTurn(
    text="t",
    tool_calls=CALLS,
    hosted_items=({"type": "web_search_call", "status": "completed"},),
    provider_items=({"type": "reasoning", "summary": []},),
    usage=Usage(11, 7, 3, 2),
    finish_reason="tool_calls",
    refusal=None,
    response_id="resp_1",
)
REF = PromptRef("notes.agent", overrides=((("notes",), "summary"),))
RESULT = ResultData("saved", True, False, "typed", {"note_id": 1, "text": "milk"}, "note #1: milk")

ENVELOPES: list[Any] = [
    REF,
    RunInput(
        REF,
        MESSAGES,
        RunOptions(tool_choice={"type": "function", "name": "x"}, deadline=5.0),
        "run-1",
    ),
    ModelCall(REF, "run-1", 2, "system text", MESSAGES, ("add_note",), ("search",), "auto", False),
    ModelAnswer(TURN, {"search": {"text": "found", "citations": []}}),
    ToolCallInput(REF, "run-1", 1, CALLS[0], {"text": "milk"}, 3, True, 1.7e9),
    ToolAnswer(RESULT, 0.25, 2, None),
    ToolAnswer(ResultData("failed", False, kind="error_info", value={"error": "e"}), 0.1, 3, "x"),
    CallData(CALLS[1], RESULT, {"text": "milk"}, 1),
    PendingData("c9", "delete_note", {"note_id": 1}),
    ConfirmationData("c9", False, "not now"),
    RunStatus("waiting", 2, (PendingData("c9", "delete_note", {"note_id": 1}),)),
    RunResult(
        "notes.agent",
        "notes",
        "run-1",
        {"answer": 42},
        "done",
        (CallData(CALLS[0], RESULT, {"text": "milk"}, 1),),
        {"search": {"text": "x"}},
        Usage(1, 2, 0, 0),
        ((("notes",), "full"),),
        "stop",
        3,
        MESSAGES,
    ),
]


@pytest.mark.parametrize("envelope", ENVELOPES, ids=lambda e: type(e).__name__)
def test_every_envelope_round_trips_through_json_text(envelope: Any) -> None:
    text = json.dumps(to_data(envelope))
    assert from_data(type(envelope), json.loads(text)) == envelope


def test_a_prompt_travels_by_name_with_its_params_and_overrides(ledger: Ledger) -> None:
    registry = make_registry(ledger)
    prompt = registry.prompt(PROMPT)
    ref = prompt_ref(PROMPT, [Task("save")], {("notes",): SectionVisibility.SUMMARY})

    back = from_data(PromptRef, json.loads(json.dumps(to_data(ref))))

    assert decode_params(prompt, back) == (Task("save"),)
    assert decode_overrides(back.overrides) == {("notes",): SectionVisibility.SUMMARY}


def test_params_of_a_type_the_prompt_does_not_take_are_a_registry_mismatch(
    ledger: Ledger,
) -> None:
    prompt = make_registry(ledger).prompt(PROMPT)
    ref = prompt_ref(PROMPT, [NoteParams("milk")])

    with pytest.raises(RegistryMismatchError, match=r"no section taking params of type"):
        decode_params(prompt, ref)


@dataclass(frozen=True)
class Plain:
    a: int
    b: str | None = None


def _tool(result_type: Any) -> Tool[Any, Any]:
    return Tool[NoteParams, result_type](name="t", description="A tool.", handler=None)


@pytest.mark.parametrize(
    ("result", "tool_result_type", "kind"),
    [
        (ToolResult.ok(Saved(1, "milk"), ""), Saved, "typed"),
        (ToolResult.ok(Plain(1), "ok"), Plain, "typed"),
        (ToolResult.ok(["a", "b"], ""), list[str], "typed"),
        (
            ToolResult(message="e", value=ToolErrorInfo("e", "c", True, "retry"), success=False),
            Saved,
            "error_info",
        ),
        (ToolResult.ok(OpenSectionsResult({("a", "b"): "full"}), ""), None, "open_sections"),
        (ToolResult.error("plain failure"), Saved, "none"),
        (
            ToolResult(message="m", value=Saved(2, "x"), exclude_value_from_context=True),
            Saved,
            "typed",
        ),
    ],
)
def test_a_tool_result_comes_back_typed_and_rendering_the_same(
    result: ToolResult[Any], tool_result_type: Any, kind: str
) -> None:
    data = encode_result(result)
    assert data.kind == kind
    wired = from_data(ResultData, json.loads(json.dumps(to_data(data))))

    back = decode_result(wired, _tool(tool_result_type) if tool_result_type else None)

    assert back == result
    assert back.model_text() == result.model_text()


def test_a_value_whose_type_is_unknown_keeps_its_data_and_the_workers_rendering() -> None:
    result = ToolResult.ok(Saved(3, "tea"), "")  # the tool declares no result type
    back = decode_result(encode_result(result), _tool(None))

    assert back.value == OpaqueValue({"note_id": 3, "text": "tea"}, "note #3: tea")
    assert back.model_text() == result.model_text() == "note #3: tea"
    again, first = encode_result(back), encode_result(result)
    assert (again.kind, again.value, again.rendered) == ("opaque", first.value, first.rendered)


def test_a_value_that_parses_but_renders_differently_stays_opaque() -> None:
    """A tool declaring ``dict`` but returning an object with its own ``render()``."""
    result = ToolResult.ok(Saved(4, "jam"), "")
    back = decode_result(encode_result(result), _tool(dict[str, Any]))

    assert back.model_text() == "note #4: jam"
    assert isinstance(back.value, OpaqueValue)


def test_a_value_serde_cannot_dump_crosses_as_its_rendered_text() -> None:
    class Odd:
        def render(self) -> str:
            return "odd!"

    back = decode_result(encode_result(ToolResult.ok(Odd(), "")), _tool(None))

    assert back.model_text() == "odd!"


def test_a_response_round_trips_to_the_same_comparable_response(ledger: Ledger) -> None:
    """What the workflow returns, decoded by a client's registry, is the response itself."""
    registry = make_registry(ledger)
    prompt = registry.prompt(PROMPT)

    async def run() -> Any:
        adapter = make_adapter()
        suspended = await adapter.aevaluate(prompt, Task("save-and-delete"))
        return await adapter.aevaluate(
            prompt, session=suspended.session, confirmations={"call-del": approve()}
        )

    response = asyncio.run(run())
    wired = json.loads(json.dumps(to_data(encode_response(PROMPT, response))))

    back = decode_response(from_data(RunResult, wired), registry)

    assert comparable(back) == comparable(response)
    assert back.tool_results[0].params == NoteParams("milk")
    assert back.tool_results[1].params == NoteRef(1)


def test_structured_output_comes_back_as_the_prompts_output_type() -> None:
    @dataclass(frozen=True)
    class Answer:
        value: int

    registry = PromptRegistry()
    registry.add(
        "answer",
        lambda: PromptTemplate[Answer](
            sections=[MarkdownSection(title="Q", template="Answer.")], name="answer"
        ),
    )
    result = RunResult("answer", "answer", "r", output={"value": 7})

    assert decode_response(result, registry).output == Answer(7)


@pytest.mark.parametrize(
    "envelope",
    [
        RunInput(REF, MESSAGES, run_id="run-1"),
        ModelCall(REF, "run-1", 2, "system text", MESSAGES, ("add_note",)),
        ToolCallInput(REF, "run-1", 1, CALLS[0], {"text": "milk"}),
    ],
    ids=lambda e: type(e).__name__,
)
def test_the_trace_context_crosses_when_there_is_one_and_envelopes_without_it_still_read(
    envelope: Any,
) -> None:
    """A run nobody traces writes what a release before tracing wrote (no ``trace`` key),
    so its history reads on either side of the upgrade; a carrier crosses as it is."""
    untraced = to_data(envelope)
    assert "trace" not in untraced
    assert from_data(type(envelope), json.loads(json.dumps(untraced))).trace == {}

    carrier = {"traceparent": f"00-{'ab' * 16}-{'cd' * 8}-01", "tracestate": "vendor=1"}
    traced = dataclasses.replace(envelope, trace=carrier)
    data = json.loads(json.dumps(to_data(traced)))
    assert data["trace"] == carrier
    assert from_data(type(envelope), data) == traced
