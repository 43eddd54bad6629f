"""The prompt the tests of this directory serve over MCP: a small task board.

Its tools cover what serving has to get right: ``get_task`` is cached (so read-only and
idempotent) and returns a dataclass (so it has an output schema); ``add_task`` is a plain
write; ``delete_task`` is destructive; ``export_board`` always fails; ``ask_model`` evaluates
a nested prompt through ``context.adapter``; ``board_stats`` sits in a summarized section and
``secret_tool`` in a disabled one. ``prompt`` is the module-level target of
``affordance mcp serve mcp_serve_board:prompt``; tests in-process build their own board.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from affordance import (
    MarkdownSection,
    PromptTemplate,
    SectionVisibility,
    ToolContext,
    ToolError,
    tool,
)

__all__ = ["Board", "BoardStats", "Task", "build_prompt", "prompt"]


@dataclass(frozen=True)
class Task:
    task_id: int
    title: str
    priority: str = "medium"


@dataclass(frozen=True)
class BoardStats:
    open: int
    lookups: int


class Board:
    """The state the tools act on; ``lookups`` counts the runs of ``get_task``'s handler."""

    def __init__(self) -> None:
        self.tasks = {1: Task(1, "Water the plants"), 2: Task(2, "Renew passport", "high")}
        self.lookups = 0
        self._ids = itertools.count(3)

    def add(self, title: str, priority: str) -> Task:
        task = Task(next(self._ids), title, priority)
        self.tasks[task.task_id] = task
        return task


def build_prompt(board: Board | None = None) -> PromptTemplate[None]:
    """The task board's prompt, its tools acting on ``board`` (a new one when None)."""
    board = board if board is not None else Board()

    @tool(cache_ttl=60)
    def get_task(task_id: int) -> Task:
        """Look up one task by its id.

        Args:
            task_id: the id of an existing task
        """
        board.lookups += 1
        if task_id not in board.tasks:
            raise ToolError("TASK_NOT_FOUND", f"there is no task #{task_id}")
        return board.tasks[task_id]

    @tool
    def add_task(title: str, priority: str = "medium") -> Task:
        """Add a task to the board.

        Args:
            title: a short title
            priority: low, medium or high
        """
        return board.add(title, priority)

    @tool(destructive=True)
    def delete_task(task_id: int) -> str:
        """Delete a task for good."""
        del board.tasks[task_id]
        return f"Deleted task #{task_id}."

    @tool
    def export_board(fmt: str) -> str:
        """Export the board to a file (the exporter is down: it always fails)."""
        raise RuntimeError("the exporter is down")

    @tool
    async def ask_model(question: str, *, context: ToolContext) -> str:
        """Ask the model a question about the board."""
        nested = PromptTemplate(
            name="question", sections=[MarkdownSection(title="Question", template=question)]
        )
        response = await context.adapter.aevaluate(nested)
        return response.text or ""

    @tool
    def board_stats() -> BoardStats:
        """Count the open tasks and the lookups so far."""
        return BoardStats(len(board.tasks), board.lookups)

    @tool
    def secret_tool() -> str:
        """Never served: its section is disabled."""
        return "secret"

    return PromptTemplate(
        name="task-board",
        sections=[
            MarkdownSection(
                title="Role",
                template="You keep the task board. Never invent ids.",
                tools=[get_task, add_task, delete_task, export_board, ask_model],
            ),
            MarkdownSection(
                title="Statistics",
                key="stats",
                template="How busy the board is.",
                summary="Board statistics.",
                visibility=SectionVisibility.SUMMARY,
                tools=[board_stats],
            ),
            MarkdownSection(
                title="Secrets",
                template="Hidden.",
                enabled=lambda: False,
                tools=[secret_tool],
            ),
        ],
    )


prompt = build_prompt()
