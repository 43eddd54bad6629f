"""OpenAI Responses API: the ``code_interpreter`` tool entry, and the runs read from ``output``.

Request (an entry of ``tools``)::

    {"type": "code_interpreter", "container": {"type": "auto", "memory_limit": "4g",
                                               "file_ids": [...]}}     # or "container": "<id>"

Request extras: ``{"include": ["code_interpreter_call.outputs"]}`` (:meth:`request_extras`).

Response: one ``code_interpreter_call`` item per run (``code``, ``status``, and ``outputs`` —
``logs`` text and ``image`` URLs, which Responses sends only when the request's ``include`` asks
for them), and ``message`` items whose ``output_text`` parts may cite created files
(``container_file_citation``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_code_interpreter._wire import string, unique_files
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.errors import refuse_unhonoured
from affordance_code_interpreter.result import CodeExecution, CodeFile, CodeInterpreterResult

__all__ = ["OpenAICodeInterpreterCodec"]


class OpenAICodeInterpreterCodec:
    """``code_interpreter`` on OpenAI's Responses API (codec provider ``openai``)."""

    kind = "code_interpreter"
    provider: ClassVar[str] = "openai"
    honours: ClassVar[Mapping[str, str]] = {
        "container_id": '`container: "<id>"`',
        "memory_limit": "`container.memory_limit`",
        "file_ids": "`container.file_ids`",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`output_text` parts",
        "executions.code": "`code`",
        "executions.language": "`python` (the tool's only language)",
        "executions.output": "`outputs[].logs` (stdout and stderr combined)",
        "executions.outcome": "`error` when `status: failed`",
        "executions.error": "`status: failed`",
        "files": "`outputs[].url` images, `container_file_citation`s",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "There is no separate stdout or stderr and no exit code: `output` is the combined "
            "logs, and a completed call says nothing about whether the code succeeded "
            "(`outcome` is None then)."
        ),
        (
            "`output` and image files come from `outputs`, which the codec asks for with "
            '`include: ["code_interpreter_call.outputs"]` (its `request_extras`; an `include` '
            "of your own in `extra_body` replaces it)."
        ),
    )

    def serialize(self, tool: HostedTool[CodeInterpreterConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        if config.container_id is not None:
            return {"type": "code_interpreter", "container": config.container_id}
        container: dict[str, Any] = {"type": "auto"}
        if config.memory_limit is not None:
            container["memory_limit"] = config.memory_limit
        if config.file_ids:
            container["file_ids"] = list(config.file_ids)
        return {"type": "code_interpreter", "container": container}

    def request_extras(self, tool: HostedTool[CodeInterpreterConfig]) -> dict[str, Any]:
        """Responses reports what the code printed and drew only when asked to."""
        return {"include": ["code_interpreter_call.outputs"]}

    def parse_output(
        self,
        response_items: Sequence[Mapping[str, Any]],
        tool: HostedTool[CodeInterpreterConfig],
    ) -> CodeInterpreterResult | None:
        with ItemReader(tool, self.provider) as read:
            items = list(read.objects(response_items, ("output",)))
            runs = [
                _execution(item, read, ("output", index))
                for index, item in items
                if item.get("type") == "code_interpreter_call"
            ]
            if not runs:
                return None
            texts: list[str] = []
            cited: list[CodeFile] = []
            for index, item in items:
                if item.get("type") != "message":
                    continue
                content = ("output", index, "content")
                for number, part in read.objects(item.get("content"), content):
                    if part.get("type") != "output_text":
                        continue
                    texts.append(read.text(part.get("text"), (*content, number, "text")) or "")
                    annotations = (*content, number, "annotations")
                    cited.extend(_cited_files(part.get("annotations"), read, annotations))
            return CodeInterpreterResult(
                executions=tuple(runs),
                text="".join(texts),
                files=unique_files([*(f for run in runs for f in run.files), *cited]),
            )


def _execution(item: Mapping[str, Any], read: ItemReader, position: Position) -> CodeExecution:
    """One ``code_interpreter_call``; an output that cannot be read is skipped."""
    logs: list[str] = []
    files: list[CodeFile] = []
    container = string(item, "container_id")
    outputs = (*position, "outputs")
    for index, output in read.objects(item.get("outputs"), outputs):
        kind = output.get("type")
        if kind == "logs":
            printed = read.text(output.get("logs"), (*outputs, index, "logs"))
            if printed is not None:
                logs.append(printed)
        elif kind == "image":
            url = string(output, "url")
            if url is None:
                read.skip((*outputs, index), "no url")
            else:
                files.append(CodeFile(url=url, container_id=container))
    failed = item.get("status") == "failed"
    return CodeExecution(
        code=read.text(item.get("code"), (*position, "code")) or "",
        language="python",
        output="".join(logs) if logs else None,
        outcome="error" if failed else None,
        error="failed" if failed else None,
        files=tuple(files),
    )


def _cited_files(annotations: Any, read: ItemReader, position: Position) -> list[CodeFile]:
    files: list[CodeFile] = []
    for index, annotation in read.objects(annotations, position):
        if annotation.get("type") != "container_file_citation":
            continue
        file_id = string(annotation, "file_id")
        if file_id is None:
            read.skip((*position, index), "no file_id")
            continue
        files.append(
            CodeFile(
                file_id=file_id,
                filename=string(annotation, "filename"),
                container_id=string(annotation, "container_id"),
            )
        )
    return files
