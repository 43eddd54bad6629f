"""A small durable deployment for the tests: a notes prompt whose handlers count their
executions in a SQLite ledger (which outlives any worker), and a scripted model that answers
from the request alone, so every worker — in this process or another — answers alike.

The model's script depends on the prompt's ``Task`` params:

- ``save``: turn 1 calls ``add_note``; turn 2 answers with the saved note.
- ``save-and-delete``: turn 1 calls ``add_note``; turn 2 calls the destructive ``delete_note``;
  turn 3 answers with the deletion's result (or its refusal).
- ``parallel``: turn 1 calls ``add_note`` twice and ``flaky`` (retryable, 2 attempts) once;
  turn 2 answers.
- ``fail``: the provider refuses the request (a ``PromptEvaluationError`` with status 400,
  as adapters raise: final, never retried).

With ``DURABLE_TEST_GATE`` set to a directory, the model request of turn 2 writes
``turn2-started`` there and then blocks until ``release`` appears: the crash test kills the
worker at that point, after the tool call and before the next model answer.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from affordance import (
    MarkdownSection,
    OutputRejected,
    PromptEvaluationError,
    PromptTemplate,
    PromptTool,
    RetryPolicy,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
)
from affordance.runtime.model.messages import ToolResultMessage
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_temporal import PromptRegistry

HERE_MODULE_DIR = str(Path(__file__).resolve().parent)
"""What a worker subprocess puts on ``PYTHONPATH`` to import this module."""
LEDGER_ENV = "DURABLE_TEST_LEDGER"
GATE_ENV = "DURABLE_TEST_GATE"
PROMPT = "notes.agent"
DELEGATING = "notes.delegating"
"""A prompt whose tool is a nested prompt (``PromptTool``) that asks to delete a note."""
CHECKED = "notes.checked"
"""A prompt with structured output and a validator: its first answer is rejected once."""
ASKING = "Deleting note #1 needs your go-ahead."
"""What the model writes in the turn that asks to delete (``save-and-delete``)."""
NOTE_IDS = {"milk": 1, "eggs": 2}


@dataclass(frozen=True, slots=True)
class Task:
    script: str


@dataclass(frozen=True, slots=True)
class NoteParams:
    text: str


@dataclass(frozen=True, slots=True)
class NoteRef:
    note_id: int


@dataclass(frozen=True, slots=True)
class Saved:
    note_id: int
    text: str

    def render(self) -> str:
        return f"note #{self.note_id}: {self.text}"


class Ledger:
    """One row per handler execution, in a SQLite file any process can open."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS runs (tool TEXT, call_id TEXT, pid INTEGER)")

    def record(self, tool: str, call_id: str) -> None:
        with closing(sqlite3.connect(self.path, timeout=10)) as db, db:
            db.execute("INSERT INTO runs VALUES (?, ?, ?)", (tool, call_id, os.getpid()))

    def executions(self) -> list[tuple[str, str]]:
        with closing(sqlite3.connect(self.path, timeout=10)) as db:
            rows = db.execute("SELECT tool, call_id FROM runs ORDER BY rowid").fetchall()
        return [(str(tool), str(call_id)) for tool, call_id in rows]


def build_prompt(ledger: Ledger) -> PromptTemplate[None]:
    def add_note(params: NoteParams, *, context: ToolContext) -> ToolResult[Saved]:
        ledger.record("add_note", context.call_id)
        # ids fixed by the text: parallel calls finish in any order
        return ToolResult.ok(Saved(NOTE_IDS.get(params.text, 0), params.text), "")

    def delete_note(params: NoteRef, *, context: ToolContext) -> ToolResult[str]:
        ledger.record("delete_note", context.call_id)
        return ToolResult.ok(f"deleted note #{params.note_id}", "")

    def flaky(params: NoteParams, *, context: ToolContext) -> ToolResult[str]:
        ledger.record("flaky", context.call_id)
        raise ToolError("backend_down", "the notes backend is down", retryable=True)

    tools = [
        Tool[NoteParams, Saved](name="add_note", description="Save a note.", handler=add_note),
        Tool[NoteRef, str](
            name="delete_note",
            description="Delete a note.",
            handler=delete_note,
            destructive=True,
        ),
        Tool[NoteParams, str](
            name="flaky",
            description="Always fails.",
            handler=flaky,
            retry=RetryPolicy(max_attempts=2, base_delay=0.01),
        ),
    ]
    section = MarkdownSection[Task](title="Task", key="task", template="Task: ${script}")
    notes = MarkdownSection(title="Notes", key="notes", template="Keep notes.", tools=tools)
    return PromptTemplate(ns="tests", key="notes", sections=[section, notes])


@dataclass(frozen=True, slots=True)
class Count:
    notes: int


def some_notes(count: Count) -> None:
    if count.notes < 1:
        raise OutputRejected("count the notes saved: there is at least one")


def build_checked_prompt() -> PromptTemplate[Count]:
    section = MarkdownSection[Task](title="Task", key="task", template="Task: ${script}")
    return PromptTemplate[Count](
        ns="tests", key="checked", sections=[section], output_validators=(some_notes,)
    )


def build_delegating_prompt(ledger: Ledger) -> PromptTemplate[None]:
    nested = build_prompt(ledger)  # the model fills its Task: script "nested"
    tool = PromptTool(nested, name="clerk", description="Hand a job over.", params_type=Task)
    section = MarkdownSection[Task](title="Task", key="task", template="Task: ${script}")
    notes = MarkdownSection(title="Notes", key="notes", template="Delegate.", tools=[tool])
    return PromptTemplate(ns="tests", key="delegating", sections=[section, notes])


def make_registry(ledger: Ledger) -> PromptRegistry:
    registry = PromptRegistry()
    registry.add(PROMPT, lambda: build_prompt(ledger))
    registry.add(DELEGATING, lambda: build_delegating_prompt(ledger))
    registry.add(CHECKED, build_checked_prompt)
    return registry


def registry_from_env() -> PromptRegistry:
    """The registry of a worker process (``--registry durable_app:registry_from_env``)."""
    return make_registry(Ledger(Path(os.environ[LEDGER_ENV])))


def respond(request: ModelRequest) -> ProviderTurn:
    """The model: a pure function of the request (the script and the results so far)."""
    script = request.rendered.text.split("Task: ", 1)[1].split("\n", 1)[0].strip()
    results = [m for m in request.messages if isinstance(m, ToolResultMessage)]
    if script == "fail":
        raise PromptEvaluationError(
            "the request is invalid", phase="request", provider="scripted", status=400
        )
    if script == "delegate":
        if request.turn == 1:
            return tool_calls(tool_call("clerk", {"script": "nested"}, call_id="call-clerk"))
        return text(" | ".join(m.content for m in results))
    if script == "nested":  # the clerk's own run: it asks to delete a note
        return tool_calls(tool_call("delete_note", {"note_id": 1}, call_id="call-inner"))
    if script == "checked":
        return text('{"notes": 0}' if request.turn == 1 else '{"notes": 2}')
    if request.turn == 2:
        _gate()
    if request.turn == 1:
        if script == "parallel":
            return tool_calls(
                tool_call("add_note", {"text": "milk"}, call_id="call-a"),
                tool_call("add_note", {"text": "eggs"}, call_id="call-b"),
                tool_call("flaky", {"text": "x"}, call_id="call-c"),
            )
        return tool_calls(tool_call("add_note", {"text": "milk"}, call_id="call-add"))
    if script == "save-and-delete" and request.turn == 2:
        return tool_calls(tool_call("delete_note", {"note_id": 1}, call_id="call-del"), text=ASKING)
    return text(" | ".join(m.content for m in results))


def _gate() -> None:
    gate = os.environ.get(GATE_ENV)
    if not gate:
        return
    folder = Path(gate)
    (folder / "turn2-started").write_text(str(os.getpid()))
    give_up = time.monotonic() + 60
    while not (folder / "release").exists():
        if time.monotonic() > give_up:
            raise TimeoutError("the test never released the gate")
        time.sleep(0.02)


def make_adapter(**options: Any) -> ScriptedAdapter:
    """The worker's model (``--adapter durable_app:make_adapter``)."""
    return ScriptedAdapter(responder=respond, **options)
