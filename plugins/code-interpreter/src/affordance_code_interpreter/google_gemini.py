"""Google Gemini: ``codeExecution``, and the runs read from the candidate's parts.

Request (an entry of ``tools``): ``{"codeExecution": {}}`` (no settings).

The adapter hands the codec one item: the first candidate (camelCase). Its ``content.parts``
hold
``executableCode`` {language, code, id?} parts, each followed by a ``codeExecutionResult``
{outcome, output, id?} part (matched by ``id`` when both have one, else by order), between
the answer's ``text`` parts. ``outcome`` is ``OUTCOME_OK``,
``OUTCOME_FAILED`` or ``OUTCOME_DEADLINE_EXCEEDED``; ``output`` is stdout on success and
stderr with stdout on failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from affordance.tools import HostedTool, ItemReader, Position
from affordance_code_interpreter._wire import string
from affordance_code_interpreter.config import CodeInterpreterConfig
from affordance_code_interpreter.errors import refuse_unhonoured
from affordance_code_interpreter.result import CodeExecution, CodeInterpreterResult, Outcome

__all__ = ["GoogleCodeInterpreterCodec"]

_OUTCOMES: Mapping[str, Outcome] = {
    "OUTCOME_OK": "ok",
    "OUTCOME_FAILED": "failed",
    "OUTCOME_DEADLINE_EXCEEDED": "timed_out",
}


class GoogleCodeInterpreterCodec:
    """``code_interpreter`` on Gemini through code execution (codec provider ``google``)."""

    kind = "code_interpreter"
    provider: ClassVar[str] = "google"
    honours: ClassVar[Mapping[str, str]] = {}
    fills: ClassVar[Mapping[str, str]] = {
        "text": "`text` parts",
        "executions.code": "`executableCode.code`",
        "executions.language": "`executableCode.language` (lower case)",
        "executions.output": "`codeExecutionResult.output`",
        "executions.outcome": "`codeExecutionResult.outcome`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        "Nothing is configurable: `container_id`, `memory_limit` and `file_ids` are errors.",
        (
            "There is no separate stdout or stderr and no exit code: `output` holds stdout, or "
            "stderr and stdout when the run failed; `outcome` says which."
        ),
        "Images the code draws arrive as `inlineData` parts and are not reported as files.",
    )

    def serialize(self, tool: HostedTool[CodeInterpreterConfig]) -> dict[str, Any]:
        refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        return {"codeExecution": {}}

    def parse_output(
        self,
        response_items: Sequence[Mapping[str, Any]],
        tool: HostedTool[CodeInterpreterConfig],
    ) -> CodeInterpreterResult | None:
        items: Sequence[object] = response_items  # a hostile list may hold anything
        candidate = next(
            (i for i in items if isinstance(i, Mapping) and isinstance(i.get("content"), dict)),
            None,
        )
        if candidate is None:
            return None
        runs: list[_Run] = []
        texts: list[str] = []
        with ItemReader(tool, self.provider) as read:
            for index, part in read.objects(candidate["content"].get("parts"), _PARTS):
                code, result = part.get("executableCode"), part.get("codeExecutionResult")
                if code is not None or result is not None:
                    _read_run(runs, index, code, result, read)
                elif not part.get("thought"):
                    text = read.text(part.get("text"), (*_PARTS, index, "text"))
                    if text is not None:
                        texts.append(text)
            if not runs:
                return None
            return CodeInterpreterResult(
                executions=tuple(run.execution(read) for run in runs), text="".join(texts)
            )


_PARTS: Position = ("candidate", "content", "parts")


def _read_run(runs: list[_Run], index: int, code: Any, result: Any, read: ItemReader) -> None:
    """Part ``index``: a new run (``executableCode``) or the result of one."""
    if isinstance(code, Mapping):
        runs.append(_Run(code, index))
    elif isinstance(result, Mapping):
        if not _attach(runs, result, index):
            read.skip((*_PARTS, index, "codeExecutionResult"), "no run to attach it to")
    else:
        field = "executableCode" if code is not None else "codeExecutionResult"
        read.skip((*_PARTS, index, field), "not an object")


@dataclass
class _Run:
    code: Mapping[str, Any]
    index: int
    result: Mapping[str, Any] | None = field(default=None)
    result_index: int = -1

    def execution(self, read: ItemReader) -> CodeExecution:
        language = string(self.code, "language")
        result = self.result
        outcome = string(result, "outcome") if result is not None else None
        code = read.text(self.code.get("code"), (*_PARTS, self.index, "executableCode", "code"))
        output = None
        if result is not None:
            where = (*_PARTS, self.result_index, "codeExecutionResult", "output")
            output = read.text(result.get("output"), where)
        return CodeExecution(
            code=code or "",
            language=None if language is None else language.lower(),
            output=output,
            outcome=None if outcome is None else _OUTCOMES.get(outcome),
        )


def _attach(runs: list[_Run], result: Mapping[str, Any], index: int) -> bool:
    """Give ``result`` (part ``index``) to the run with its id, else to the latest run still
    without one; False when every run has its result."""
    result_id = string(result, "id")
    waiting = [run for run in runs if run.result is None]
    matched = [run for run in waiting if result_id and string(run.code, "id") == result_id]
    target = matched[0] if matched else (waiting[-1] if waiting else None)
    if target is None:
        return False
    target.result, target.result_index = result, index
    return True
