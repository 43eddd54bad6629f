"""Logs carry metadata only: no argument values, results or prompt text unless asked for."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from affordance import MarkdownSection, PromptTemplate, Tool, ToolResult
from affordance.runtime import ToolExecutor
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

MARKER = "zq-SECRET-7c1f"


@dataclass(frozen=True)
class NoteParams:
    title: str
    tags: list[str]


@dataclass(frozen=True)
class Note:
    body: str


def write_note(params: NoteParams) -> ToolResult[Note]:
    return ToolResult.ok(Note(f"{params.title} {MARKER}"), message=f"saved {MARKER}")


def failing(params: NoteParams) -> ToolResult[Note]:
    raise RuntimeError(f"cannot save {MARKER}")


PROMPT = PromptTemplate(
    name="notes",
    sections=[
        MarkdownSection(
            title="Task",
            template=f"Keep notes. {MARKER}",
            tools=[
                Tool[NoteParams, Note](name="write_note", description="Write.", handler=write_note),
                Tool[NoteParams, Note](name="failing", description="Fail.", handler=failing),
            ],
        )
    ],
)


def run(executor: ToolExecutor) -> None:
    arguments = {"title": MARKER, "tags": [MARKER]}
    adapter = ScriptedAdapter(
        [
            tool_calls(
                tool_call("write_note", arguments),
                tool_call("failing", arguments),
                tool_call("write_note", {"title": 3, "tags": MARKER}),
            ),
            text(f"done {MARKER}"),
        ],
        executor=executor,
    )
    adapter.evaluate(PROMPT)


def test_no_log_record_carries_arguments_results_or_prompt_text(caplog):
    with caplog.at_level(logging.DEBUG, logger="affordance"):
        run(ToolExecutor())
    assert len(caplog.records) == 3
    for record in caplog.records:
        assert MARKER not in record.getMessage()
        assert MARKER not in repr(record.__dict__)
    first = caplog.records[0]
    assert first.affordance_tool == "write_note"  # type: ignore[attr-defined]
    assert first.affordance_arg_kinds == {"title": "string", "tags": "array"}  # type: ignore[attr-defined]
    assert first.affordance_outcome == "success"  # type: ignore[attr-defined]
    assert first.affordance_run_id  # type: ignore[attr-defined]
    assert first.affordance_call_id  # type: ignore[attr-defined]
    assert caplog.records[1].affordance_error_code == "RuntimeError"  # type: ignore[attr-defined]


def test_content_logging_must_be_switched_on_explicitly(caplog):
    with caplog.at_level(logging.DEBUG, logger="affordance"):
        run(ToolExecutor(log_content=True))
    content = [r for r in caplog.records if hasattr(r, "affordance_content")]
    assert content
    assert all(r.levelno == logging.DEBUG for r in content)
    assert MARKER in repr(content[0].affordance_content)  # type: ignore[attr-defined]
