"""The offline demo agent: a small task manager, a scripted model, and a summarized section.

The script makes the model do what real models do: call a tool with a wrong argument and
recover, call tools in parallel, open a summarized section, ask for a destructive action
that the person must confirm, and answer from the result it got: done, or declined.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field
from typing import Any

from affordance.errors import ToolError
from affordance.prompt.markdown import MarkdownSection
from affordance.prompt.section import SectionVisibility
from affordance.prompt.template import PromptTemplate
from affordance.runtime.model.messages import ToolResultMessage
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.testing.scripted import ScriptedAdapter, text, tool_call, tool_calls
from affordance.tools.result import ToolResult
from affordance.tools.tool import Tool

__all__ = ["TaskBoard", "build_adapter", "build_prompt"]


class Priority(enum.Enum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@dataclass(frozen=True)
class CreateTask:
    title: str = field(metadata={"description": "Short title", "min_length": 1, "max_length": 80})
    priority: Priority = field(default=Priority.MEDIUM, metadata={"description": "Urgency"})


@dataclass(frozen=True)
class TaskRef:
    task_id: int = field(metadata={"description": "Id of an existing task", "ge": 1})


@dataclass(frozen=True)
class Task:
    task_id: int
    title: str
    priority: Priority
    done: bool = False


@dataclass(frozen=True)
class TaskList:
    tasks: tuple[Task, ...]

    def render(self) -> str:
        lines = [f"#{t.task_id} [{t.priority.value}] {t.title}" for t in self.tasks]
        return "\n".join(lines) or "(no tasks)"


@dataclass(frozen=True)
class Owner:
    name: str


class TaskBoard:
    """The application state the tools act on."""

    def __init__(self) -> None:
        self.tasks: dict[int, Task] = {}
        self._ids = itertools.count(1)

    def create(self, params: CreateTask) -> ToolResult[Task]:
        task = Task(next(self._ids), params.title, params.priority)
        self.tasks[task.task_id] = task
        return ToolResult.ok(task, message=f"Created task #{task.task_id}.")

    def list(self, params: None) -> ToolResult[TaskList]:
        return ToolResult.ok(TaskList(tuple(self.tasks.values())), message="Current tasks:")

    def delete(self, params: TaskRef) -> ToolResult[None]:
        if params.task_id not in self.tasks:
            raise ToolError(
                "TASK_NOT_FOUND",
                f"there is no task #{params.task_id}",
                recover_action="call list_tasks to see the ids",
            )
        del self.tasks[params.task_id]
        return ToolResult.ok(None, message=f"Deleted task #{params.task_id}.")


def build_prompt(board: TaskBoard) -> PromptTemplate[None]:
    tools: list[Tool[Any, Any]] = [
        Tool[CreateTask, Task](
            name="create_task", description="Create a task.", handler=board.create
        ),
        Tool[None, TaskList](name="list_tasks", description="List all tasks.", handler=board.list),
        Tool[TaskRef, None](
            name="delete_task",
            description="Delete a task for good.",
            handler=board.delete,
            destructive=True,
        ),
    ]
    return PromptTemplate(
        ns="demo",
        key="task-assistant",
        sections=[
            MarkdownSection[Owner](
                title="Role",
                template="You manage the task list of ${name}. Use the tools; never invent ids.",
                tools=tools,
            ),
            MarkdownSection(
                title="House rules",
                key="rules",
                template="""
                - Priorities are low, medium or high.
                - Duplicate tasks are deleted, after the owner confirms.
                """,
                summary="Rules for priorities and duplicates.",
                visibility=SectionVisibility.SUMMARY,
            ),
        ],
    )


def build_adapter() -> ScriptedAdapter:
    """The model's side of the conversation, scripted."""
    return ScriptedAdapter(
        stream_chunk=6,
        steps=[
            tool_calls(
                tool_call(
                    "open_sections", {"section_keys": ["rules"], "reason": "Check priorities"}
                )
            ),
            tool_calls(
                tool_call("create_task", {"title": "Water the plants", "priority": "urgent"}),
                tool_call("create_task", {"title": "Renew passport", "priority": "high"}),
            ),
            tool_calls(
                tool_call("create_task", {"title": "Water the plants", "priority": "high"}),
                tool_call("create_task", {"title": "Water the plants", "priority": "low"}),
            ),
            tool_calls(tool_call("list_tasks", {})),
            tool_calls(tool_call("delete_task", {"task_id": 3}, call_id="call_delete")),
            _final_answer,
        ],
    )


def _final_answer(request: ModelRequest) -> ProviderTurn:
    """The last answer, from the delete's result as the model reads it: done, or declined."""
    deleted = next(
        message
        for message in reversed(request.messages)
        if isinstance(message, ToolResultMessage) and message.call_id == "call_delete"
    )
    if deleted.is_error:
        return text(
            "I did not delete task #3, the low-priority duplicate of 'Water the plants': you "
            "declined. You still have 'Renew passport', and 'Water the plants' twice."
        )
    return text("Done: you have 'Renew passport' and 'Water the plants', both high priority.")
