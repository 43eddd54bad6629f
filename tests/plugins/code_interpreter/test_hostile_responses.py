"""The ``code_interpreter`` codecs on hostile responses: a malformed run, output, file or list is
skipped with a metadata-only warning on ``affordance.hosted`` and the rest of the output
survives, on every provider."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from affordance_code_interpreter import (
    CodeExecution,
    CodeFile,
    CodeInterpreterResult,
    code_interpreter_tool,
)
from affordance_code_interpreter.anthropic_messages import AnthropicCodeInterpreterCodec
from affordance_code_interpreter.google_gemini import GoogleCodeInterpreterCodec
from affordance_code_interpreter.openai_responses import OpenAICodeInterpreterCodec

CODECS: dict[str, Any] = {
    "openai": OpenAICodeInterpreterCodec(),
    "anthropic": AnthropicCodeInterpreterCodec(),
    "google": GoogleCodeInterpreterCodec(),
}
TOOL = code_interpreter_tool()
LEAK = "https://leak.example/secret-output"
"""What a malformed item carries: it may reach no log record."""


def skipped(caplog: pytest.LogCaptureFixture, provider: str) -> list[tuple[str, str]]:
    """``(position, problem)`` of each item skipped, after checking that each record holds
    metadata only."""
    found = []
    for record in caplog.records:
        if record.name != "affordance.hosted":
            continue
        assert "leak" not in record.getMessage() + repr(vars(record))
        fields = vars(record)
        assert (fields["affordance_kind"], fields["affordance_provider"]) == (
            "code_interpreter",
            provider,
        )
        found.append((fields["affordance_item"], fields["affordance_problem"]))
    return found


def read(
    provider: str, items: list[Any], caplog: pytest.LogCaptureFixture
) -> CodeInterpreterResult | None:
    with caplog.at_level(logging.WARNING, logger="affordance.hosted"):
        result = CODECS[provider].parse_output(items, TOOL)
    assert result is None or isinstance(result, CodeInterpreterResult)
    return result


# -- OpenAI Responses ------------------------------------------------------------------------------


def openai_call(code: Any, outputs: Any, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "code_interpreter_call",
        "id": "ci",
        "container_id": "cntr_1",
        "status": status,
        "code": code,
        "outputs": outputs,
    }


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (LEAK, "output[0].outputs[1]: not an object"),
        (7, "output[0].outputs[1]: not an object"),
        ({"type": "image", "url": [LEAK]}, "output[0].outputs[1]: no url"),
        ({"type": "logs", "logs": {"text": LEAK}}, "output[0].outputs[1].logs: not a string"),
    ],
    ids=["a bare URL string", "a number", "an image without a url", "logs that are no string"],
)
def test_openai_a_malformed_output_is_skipped_and_the_others_kept(
    bad: Any, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    outputs = [{"type": "logs", "logs": "ok\n"}, bad, {"type": "image", "url": "https://img/1"}]
    items = [
        openai_call("plot()", outputs),
        {"type": "message", "content": [{"type": "output_text", "text": "Done."}]},
    ]

    result = read("openai", items, caplog)

    assert result == CodeInterpreterResult(
        executions=(
            CodeExecution(
                code="plot()",
                language="python",
                output="ok\n",
                files=(CodeFile(url="https://img/1", container_id="cntr_1"),),
            ),
        ),
        text="Done.",
        files=(CodeFile(url="https://img/1", container_id="cntr_1"),),
    )
    assert [": ".join(s) for s in skipped(caplog, "openai")] == [problem]


@pytest.mark.parametrize("outputs", [7, LEAK, {"type": "logs"}], ids=repr)
def test_openai_an_output_list_that_is_no_list_keeps_the_run(
    outputs: Any, caplog: pytest.LogCaptureFixture
) -> None:
    items = [openai_call("boom()", outputs, status="failed"), openai_call("ok()", [])]

    result = read("openai", items, caplog)

    assert result is not None
    assert [(e.code, e.output, e.outcome) for e in result.executions] == [
        ("boom()", None, "error"),
        ("ok()", None, None),
    ]
    assert skipped(caplog, "openai") == [("output[0].outputs", "not a list")]


def test_openai_malformed_runs_items_code_and_file_citations_are_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    annotations = [
        {"type": "container_file_citation", "container_id": "c", "file_id": "cfile_1"},
        {"type": "container_file_citation", "container_id": "c", "filename": LEAK},
        LEAK,
    ]
    items = [
        LEAK,
        openai_call({"source": LEAK}, [{"type": "logs", "logs": "1\n"}]),
        {
            "type": "message",
            "content": [{"type": "output_text", "text": "See.", "annotations": annotations}],
        },
        {"type": "message", "content": LEAK},
    ]

    result = read("openai", items, caplog)

    assert result is not None
    assert [(e.code, e.output) for e in result.executions] == [("", "1\n")]
    assert result.files == (CodeFile(file_id="cfile_1", container_id="c"),)
    assert result.text == "See."
    assert skipped(caplog, "openai") == [
        ("output[0]", "not an object"),
        ("output[1].code", "not a string"),
        ("output[2].content[0].annotations[1]", "no file_id"),
        ("output[2].content[0].annotations[2]", "not an object"),
        ("output[3].content", "not a list"),
    ]


# -- Anthropic -----------------------------------------------------------------------------------


def anthropic_run(call_id: str, command: Any, content: Any) -> list[dict[str, Any]]:
    return [
        {"type": "server_tool_use", "id": call_id, "name": "bash_code_execution", "input": command},
        {"type": "bash_code_execution_tool_result", "tool_use_id": call_id, "content": content},
    ]


def bash_result(**fields: Any) -> dict[str, Any]:
    result = {
        "type": "bash_code_execution_result",
        "stdout": "out\n",
        "stderr": "",
        "return_code": 0,
        "content": [],
    }
    result.update(fields)
    return result


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (LEAK, "not an object"),
        (7, "not an object"),
        ({"type": "bash_code_execution_output", "file_id": [LEAK]}, "no file_id"),
    ],
    ids=["a bare URL string", "a number", "no file_id"],
)
def test_anthropic_a_malformed_file_is_skipped_and_the_others_kept(
    bad: Any, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    files = [{"file_id": "f1"}, bad, {"file_id": "f2"}]
    blocks = anthropic_run("a", {"command": "make"}, bash_result(content=files))

    result = read("anthropic", blocks, caplog)

    assert result is not None
    assert result.files == (CodeFile(file_id="f1"), CodeFile(file_id="f2"))
    assert (result.output, result.exit_code, result.outcome) == ("out\n", 0, "ok")
    assert skipped(caplog, "anthropic") == [("content[1].content.content[1]", problem)]


def test_anthropic_malformed_fields_of_runs_are_skipped_and_the_runs_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    blocks = [
        LEAK,
        *anthropic_run("a", LEAK, bash_result(stdout=[LEAK], return_code="0")),
        *anthropic_run("b", {"command": {"sh": LEAK}}, LEAK),
        *anthropic_run("c", {"command": "ls"}, bash_result(content=7)),
        {"type": "text", "text": {"t": LEAK}},
        {"type": "text", "text": "Done."},
    ]

    result = read("anthropic", blocks, caplog)

    assert result is not None
    assert [(e.code, e.stdout, e.stderr, e.exit_code, e.outcome) for e in result.executions] == [
        ("", None, "", None, None),
        ("", None, None, None, None),
        ("ls", "out\n", "", 0, "ok"),
    ]
    assert result.text == "Done."
    assert skipped(caplog, "anthropic") == [
        ("content[0]", "not an object"),
        ("content[1].input", "not an object"),
        ("content[2].content.stdout", "not a string"),
        ("content[2].content.return_code", "not an integer"),
        ("content[3].input.command", "not a string"),
        ("content[4].content", "not an object"),
        ("content[6].content.content", "not a list"),
        ("content[7].text", "not a string"),
    ]


# -- Gemini ----------------------------------------------------------------------------------------


def gemini(parts: Any) -> list[dict[str, Any]]:
    return [{"content": {"role": "model", "parts": parts}}]


def test_google_malformed_parts_are_skipped_and_the_runs_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    parts = [
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        LEAK,
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
        {"executableCode": LEAK},
        {"executableCode": {"language": "PYTHON", "code": [LEAK]}},
        {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": {"o": LEAK}}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": LEAK}},
        {"codeExecutionResult": 7},
        {"text": ["Done", LEAK]},
        {"text": "Done."},
    ]

    result = read("google", gemini(parts), caplog)

    assert result is not None
    assert [(e.code, e.output, e.outcome) for e in result.executions] == [
        ("print(1)", "1\n", "ok"),
        ("", None, "failed"),
    ]
    assert result.text == "Done."
    where = "candidate.content.parts"
    assert skipped(caplog, "google") == [
        (f"{where}[1]", "not an object"),
        (f"{where}[3].executableCode", "not an object"),
        (f"{where}[6].codeExecutionResult", "no run to attach it to"),
        (f"{where}[7].codeExecutionResult", "not an object"),
        (f"{where}[8].text", "not a string"),
        (f"{where}[4].executableCode.code", "not a string"),
        (f"{where}[5].codeExecutionResult.output", "not a string"),
    ]


@pytest.mark.parametrize("parts", [7, LEAK], ids=repr)
def test_google_parts_that_are_no_list_are_no_runs(
    parts: Any, caplog: pytest.LogCaptureFixture
) -> None:
    assert read("google", gemini(parts), caplog) is None
    assert skipped(caplog, "google") == [("candidate.content.parts", "not a list")]
