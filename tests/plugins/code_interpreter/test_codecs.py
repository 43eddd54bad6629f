"""The ``code_interpreter`` codecs: the conformance kit on each, settings honoured or refused
per provider, and each provider's runs read into the same typed result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hosted_tools import CODE_ANSWER, SUM_OUTPUT, codec_items, load

from affordance import HostedTool
from affordance_code_interpreter import (
    CONFIG_FIELDS,
    CodeExecution,
    CodeFile,
    CodeInterpreterConfig,
    CodeInterpreterResult,
    UnsupportedCodeInterpreterConfigError,
    code_interpreter_tool,
)
from affordance_code_interpreter.anthropic_messages import AnthropicCodeInterpreterCodec
from affordance_code_interpreter.google_gemini import GoogleCodeInterpreterCodec
from affordance_code_interpreter.openai_responses import OpenAICodeInterpreterCodec
from affordance_testing.codec_contract import CodecContract

CODECS: dict[str, Any] = {
    "openai": OpenAICodeInterpreterCodec(),
    "anthropic": AnthropicCodeInterpreterCodec(),
    "google": GoogleCodeInterpreterCodec(),
}
SAMPLES = {
    "openai": "openai_responses_code_interpreter",
    "anthropic": "anthropic_code_execution",
    "google": "google_code_execution",
}
ONLY = {
    "container_id": CodeInterpreterConfig(container_id="cntr_1"),
    "memory_limit": CodeInterpreterConfig(memory_limit="4g"),
    "file_ids": CodeInterpreterConfig(file_ids=("file_1",)),
}


def sample(provider: str) -> list[dict[str, Any]]:
    return codec_items(provider, load(SAMPLES[provider]))


def tool(config: CodeInterpreterConfig | None = None) -> HostedTool[CodeInterpreterConfig]:
    return code_interpreter_tool(config)


class CodeContract(CodecContract):
    provider = ""

    @pytest.fixture
    def codec(self) -> Any:
        return CODECS[self.provider]

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[CodeInterpreterConfig]:
        return tool()

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return sample(self.provider)


class TestOpenAICodeInterpreterCodec(CodeContract):
    provider = "openai"


class TestAnthropicCodeInterpreterCodec(CodeContract):
    provider = "anthropic"

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [{"type": "text", "text": "Hello."}]


class TestGoogleCodeInterpreterCodec(CodeContract):
    provider = "google"

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [{"content": {"role": "model", "parts": [{"text": "Hello."}]}, "index": 0}]


@pytest.mark.parametrize("provider", list(CODECS))
@pytest.mark.parametrize("field", CONFIG_FIELDS)
def test_a_setting_is_sent_where_honoured_and_refused_by_name_elsewhere(
    provider: str, field: str
) -> None:
    codec = CODECS[provider]
    hosted = code_interpreter_tool(ONLY[field], name="sandbox")

    if field in codec.honours:
        assert codec.serialize(hosted) != codec.serialize(tool())
        return
    with pytest.raises(UnsupportedCodeInterpreterConfigError) as raised:
        codec.serialize(hosted)
    error = raised.value
    assert (error.field, error.provider, error.tool_name, error.phase) == (
        field,
        provider,
        "sandbox",
        "render",
    )


def test_the_wire_of_each_provider() -> None:
    assert CODECS["openai"].serialize(tool()) == {
        "type": "code_interpreter",
        "container": {"type": "auto"},
    }
    new = CodeInterpreterConfig(memory_limit="16g", file_ids=("file_1", "file_2"))
    assert CODECS["openai"].serialize(tool(new)) == {
        "type": "code_interpreter",
        "container": {"type": "auto", "memory_limit": "16g", "file_ids": ["file_1", "file_2"]},
    }
    reuse = CodeInterpreterConfig(container_id="cntr_1")
    assert CODECS["openai"].serialize(tool(reuse)) == {
        "type": "code_interpreter",
        "container": "cntr_1",
    }
    assert CODECS["anthropic"].serialize(tool()) == {
        "type": "code_execution_20250825",
        "name": "code_execution",
    }
    assert CODECS["google"].serialize(tool()) == {"codeExecution": {}}


@pytest.mark.parametrize("provider", list(CODECS))
def test_the_same_sum_reads_the_same_on_every_provider(provider: str) -> None:
    result = CODECS[provider].parse_output(sample(provider), tool())

    assert isinstance(result, CodeInterpreterResult)
    assert len(result.executions) == 1
    assert "print(sum(range(1, 101)))" in result.code
    assert result.output == SUM_OUTPUT
    assert result.text.endswith(CODE_ANSWER)


def test_what_each_provider_reports_beyond_the_output() -> None:
    openai, anthropic, google = (
        CODECS[p].parse_output(sample(p), tool()).executions[0] for p in CODECS
    )

    assert (openai.language, openai.stdout, openai.exit_code, openai.outcome) == (
        "python",
        None,
        None,
        None,
    )
    assert anthropic == CodeExecution(
        code="python3 -c 'print(sum(range(1, 101)))'",
        language="bash",
        output="5050\n",
        stdout="5050\n",
        stderr="",
        exit_code=0,
        outcome="ok",
    )
    assert (google.language, google.stdout, google.exit_code, google.outcome) == (
        "python",
        None,
        None,
        "ok",
    )


def test_openai_reads_failed_calls_images_and_cited_files() -> None:
    items = [
        {"type": "code_interpreter_call", "id": "ci_1", "container_id": "cntr_1",
         "status": "completed", "code": "plot()",
         "outputs": [{"type": "logs", "logs": "ok\n"}, {"type": "image", "url": "https://img/1"}]},
        {"type": "code_interpreter_call", "id": "ci_2", "container_id": "cntr_1",
         "status": "failed", "code": "boom()", "outputs": None},
        {"type": "message", "content": [{"type": "output_text", "text": "See data.csv.",
         "annotations": [{"type": "container_file_citation", "container_id": "cntr_1",
                          "file_id": "cfile_1", "filename": "data.csv",
                          "start_index": 4, "end_index": 12}]}]},
    ]  # fmt: skip

    result = CODECS["openai"].parse_output(items, tool())

    assert result is not None
    assert [e.outcome for e in result.executions] == [None, "error"]
    assert result.executions[1].output is None
    assert result.files == (
        CodeFile(url="https://img/1", container_id="cntr_1"),
        CodeFile(file_id="cfile_1", filename="data.csv", container_id="cntr_1"),
    )
    assert result.text == "See data.csv."


def test_anthropic_reads_python_runs_errors_timeouts_and_files() -> None:
    blocks = [
        {"type": "server_tool_use", "id": "a", "name": "code_execution", "input": {"code": "1/0"}},
        {"type": "code_execution_tool_result", "tool_use_id": "a", "content": {
            "type": "code_execution_result", "stdout": "", "stderr": "ZeroDivisionError\n",
            "return_code": 1, "content": [{"type": "code_execution_output", "file_id": "f1"}]}},
        {"type": "server_tool_use", "id": "b", "name": "bash_code_execution",
         "input": {"command": "sleep 999"}},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "b", "content": {
            "type": "bash_code_execution_tool_result_error",
            "error_code": "execution_time_exceeded"}},
        {"type": "server_tool_use", "id": "c", "name": "bash_code_execution",
         "input": {"command": "ls"}},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "c", "content": {
            "type": "bash_code_execution_tool_result_error", "error_code": "unavailable"}},
        {"type": "server_tool_use", "id": "d", "name": "text_editor_code_execution",
         "input": {"command": "create", "path": "a.txt"}},
        {"type": "server_tool_use", "id": "e", "name": "bash_code_execution",
         "input": {"command": "pending"}},
    ]  # fmt: skip

    result = CODECS["anthropic"].parse_output(blocks, tool())

    assert result is not None
    assert [(e.code, e.language, e.outcome, e.error) for e in result.executions] == [
        ("1/0", "python", "failed", None),
        ("sleep 999", "bash", "timed_out", "execution_time_exceeded"),
        ("ls", "bash", "error", "unavailable"),
        ("pending", "bash", None, None),
    ]
    assert result.executions[0].output == "ZeroDivisionError\n"
    assert result.files == (CodeFile(file_id="f1"),)
    assert result.exit_code is None


def test_anthropic_blocks_whose_names_or_ids_are_no_strings_match_nothing() -> None:
    blocks = [
        {"type": "server_tool_use", "id": ["a"], "name": "code_execution", "input": {"code": "1"}},
        {"type": "server_tool_use", "id": "b", "name": ["code_execution"], "input": {}},
        {"type": "code_execution_tool_result", "tool_use_id": {"id": "a"}, "content": {}},
    ]

    result = CODECS["anthropic"].parse_output(blocks, tool())

    assert result is not None
    assert [(e.code, e.outcome) for e in result.executions] == [("1", None)]  # no result paired


def test_anthropic_file_edits_alone_are_no_runs() -> None:
    blocks = [
        {"type": "server_tool_use", "id": "d", "name": "text_editor_code_execution", "input": {}}
    ]

    assert CODECS["anthropic"].parse_output(blocks, tool()) is None


def test_google_pairs_results_by_id_else_by_order() -> None:
    parts = [
        {"executableCode": {"language": "PYTHON", "code": "a()", "id": "x"}},
        {"executableCode": {"language": "PYTHON", "code": "b()"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_DEADLINE_EXCEEDED", "output": "late"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "Traceback", "id": "x"}},
        {"text": "thinking", "thought": True},
        {"text": "Done."},
    ]
    candidate = {"content": {"role": "model", "parts": parts}}

    result = CODECS["google"].parse_output([candidate], tool())

    assert result is not None
    assert [(e.code, e.outcome, e.output) for e in result.executions] == [
        ("a()", "failed", "Traceback"),
        ("b()", "timed_out", "late"),
    ]
    assert result.text == "Done."
