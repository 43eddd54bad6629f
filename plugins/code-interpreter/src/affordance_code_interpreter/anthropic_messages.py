"""Anthropic Messages: the versioned ``code_execution`` server tool, and the runs it reports.

Request (an entry of ``tools``): ``{"type": "code_execution_20250825", "name":
"code_execution"}`` (bash commands and file edits in a sandbox; no settings).

Response: content blocks in order. Each run is a ``server_tool_use`` block answered by the
result block whose ``tool_use_id`` is its id:

- ``bash_code_execution`` (input ``{command}``) → ``bash_code_execution_tool_result`` whose
  content is ``bash_code_execution_result`` {stdout, stderr, return_code, content: [{file_id}]}
  or ``bash_code_execution_tool_result_error`` {error_code};
- ``code_execution`` (input ``{code}``; the ``code_execution_20250522`` tool, Python) →
  ``code_execution_tool_result`` with ``code_execution_result`` (the same fields),
  ``encrypted_code_execution_result`` (stdout withheld) or an error.

``text_editor_code_execution`` calls (view, create, edit a file) run no code and are not runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_code_interpreter._wire import integer, string, unique_files
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.errors import refuse_unhonoured
from affordance_code_interpreter.result import (
    CodeExecution,
    CodeFile,
    CodeInterpreterResult,
    Outcome,
)

__all__ = ["ANTHROPIC_CODE_EXECUTION_TYPE", "AnthropicCodeInterpreterCodec"]

ANTHROPIC_CODE_EXECUTION_TYPE = "code_execution_20250825"
"""The server tool version declared (bash and files); 20250522's Python runs read back too."""

_RUNS = {
    "bash_code_execution": ("command", "bash"),
    "code_execution": ("code", "python"),
}
"""``server_tool_use`` name -> (the input key holding the code, its language)."""


class AnthropicCodeInterpreterCodec:
    """``code_interpreter`` on Anthropic's Messages API (codec provider ``anthropic``)."""

    kind = "code_interpreter"
    provider: ClassVar[str] = "anthropic"
    honours: ClassVar[Mapping[str, str]] = {}
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`text` blocks",
        "executions.code": "`input.command` (bash) / `input.code` (python)",
        "executions.language": "`bash` / `python`, by the call's name",
        "executions.output": "`stdout` then `stderr`",
        "executions.stdout": "`stdout`",
        "executions.stderr": "`stderr`",
        "executions.exit_code": "`return_code`",
        "executions.outcome": "from `return_code` / `error_code`",
        "executions.error": "`error_code`",
        "files": "`content[].file_id`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "Nothing is configurable in the tool entry: reusing a sandbox is the request's "
            "`container` field and files arrive as `container_upload` blocks, so `container_id`, "
            "`memory_limit` and `file_ids` are errors."
        ),
        "File edits (`text_editor_code_execution`) are not runs and are not reported.",
        "When the code called web search, the result is encrypted: `stdout` is None.",
    )

    def serialize(self, tool: HostedTool[CodeInterpreterConfig]) -> dict[str, Any]:
        refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        return {"type": ANTHROPIC_CODE_EXECUTION_TYPE, "name": "code_execution"}

    def parse_output(
        self,
        response_items: Sequence[Mapping[str, Any]],
        tool: HostedTool[CodeInterpreterConfig],
    ) -> CodeInterpreterResult | None:
        with ItemReader(tool, self.provider) as read:
            blocks = list(read.objects(response_items, ("content",)))
            results = {  # ids that are no strings match no call (and must not break the dict)
                block["tool_use_id"]: (index, block)
                for index, block in blocks
                if str(block.get("type", "")).endswith("code_execution_tool_result")
                and isinstance(block.get("tool_use_id"), str)
            }
            runs: list[CodeExecution] = []
            texts: list[str] = []
            for index, block in blocks:
                kind, name, call_id = block.get("type"), block.get("name"), block.get("id")
                if kind == "text":
                    texts.append(read.text(block.get("text"), ("content", index, "text")) or "")
                elif kind == "server_tool_use" and isinstance(name, str) and name in _RUNS:
                    result = results.get(call_id) if isinstance(call_id, str) else None
                    runs.append(_run(block, index, result, read))
            if not runs:
                return None
            return CodeInterpreterResult(
                executions=tuple(runs),
                text="".join(texts),
                files=unique_files(f for run in runs for f in run.files),
            )


def _run(
    call: Mapping[str, Any],
    index: int,
    result: tuple[int, Mapping[str, Any]] | None,
    read: ItemReader,
) -> CodeExecution:
    """One run from its ``server_tool_use`` block (at ``index``) and its result block."""
    code_key, language = _RUNS[call["name"]]
    arguments = call.get("input")
    if not isinstance(arguments, Mapping):
        if arguments is not None:
            read.skip(("content", index, "input"), "not an object")
        arguments = {}
    code = read.text(arguments.get(code_key), ("content", index, "input", code_key)) or ""
    if result is None:
        return CodeExecution(code=code, language=language)
    position: Position = ("content", result[0], "content")
    content = result[1].get("content")
    if not isinstance(content, Mapping):
        if content is not None:
            read.skip(position, "not an object")
        return CodeExecution(code=code, language=language)
    kind = str(content.get("type", ""))
    if kind.endswith("_tool_result_error"):
        error = string(content, "error_code") or "error"
        outcome: Outcome = "timed_out" if error == "execution_time_exceeded" else "error"
        return CodeExecution(code=code, language=language, outcome=outcome, error=error)
    stdout = read.text(content.get("stdout"), (*position, "stdout"))
    stderr = read.text(content.get("stderr"), (*position, "stderr"))
    exit_code = integer(content, "return_code")
    if exit_code is None and content.get("return_code") is not None:
        read.skip((*position, "return_code"), "not an integer")
    files: list[CodeFile] = []
    for number, output in read.objects(content.get("content"), (*position, "content")):
        file_id = string(output, "file_id")
        if file_id is None:
            read.skip((*position, "content", number), "no file_id")
        else:
            files.append(CodeFile(file_id=file_id))
    printed = [text for text in (stdout, stderr) if text is not None]
    return CodeExecution(
        code=code,
        language=language,
        output="".join(printed) if printed else None,
        stdout=stdout,
        stderr=stderr,
        exit_code=exit_code,
        outcome=None if exit_code is None else ("ok" if exit_code == 0 else "failed"),
        files=tuple(files),
    )
