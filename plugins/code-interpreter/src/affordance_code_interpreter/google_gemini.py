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

from affordance.tools.hosted import HostedTool
from affordance_code_interpreter._wire import string, text_of
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
        runs: list[_Run] = []
        texts: list[str] = []
        for part in _parts(response_items):
            if not isinstance(part, dict):
                continue
            if isinstance(part.get("executableCode"), dict):
                runs.append(_Run(part["executableCode"]))
            elif isinstance(part.get("codeExecutionResult"), dict):
                _attach(runs, part["codeExecutionResult"])
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        if not runs:
            return None
        return CodeInterpreterResult(
            executions=tuple(run.execution() for run in runs), text="".join(texts)
        )


def _parts(items: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The parts of the first candidate (the one item the adapter hands over)."""
    for item in items:
        content = item.get("content")
        if isinstance(content, dict):
            parts = content.get("parts")
            return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
    return []


@dataclass
class _Run:
    code: Mapping[str, Any]
    result: Mapping[str, Any] | None = field(default=None)

    def execution(self) -> CodeExecution:
        language = string(self.code, "language")
        result = self.result
        outcome = string(result, "outcome") if result is not None else None
        return CodeExecution(
            code=text_of(self.code, "code") or "",
            language=None if language is None else language.lower(),
            output=None if result is None else text_of(result, "output"),
            outcome=None if outcome is None else _OUTCOMES.get(outcome),
        )


def _attach(runs: list[_Run], result: Mapping[str, Any]) -> None:
    """Give ``result`` to the run with its id, else to the latest run still without one."""
    result_id = string(result, "id")
    waiting = [run for run in runs if run.result is None]
    matched = [run for run in waiting if result_id and string(run.code, "id") == result_id]
    target = matched[0] if matched else (waiting[-1] if waiting else None)
    if target is not None:
        target.result = result
