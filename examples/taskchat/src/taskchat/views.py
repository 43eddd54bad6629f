"""What tools and the HTTP API show of tasks and attachments: the vocabularies and view models.

Three task views serve the ``response_format`` of ``query_tasks`` (seed 004's token budget):
``concise`` is id and status, ``standard`` adds the fields a person scans, ``detailed`` is all
of it, attachments included.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict

__all__ = [
    "PRIORITIES",
    "STATUSES",
    "AttachmentKind",
    "AttachmentView",
    "Priority",
    "ResponseFormat",
    "SortOrder",
    "Status",
    "TaskConcise",
    "TaskDetailed",
    "TaskStandard",
    "TaskView",
]

Status: TypeAlias = Literal["pending", "in_progress", "completed"]
Priority: TypeAlias = Literal["low", "medium", "high", "critical"]
AttachmentKind: TypeAlias = Literal["github_pull_request", "github_issue", "link"]
SortOrder: TypeAlias = Literal[
    "eta_asc", "eta_desc", "priority_desc", "created_desc", "updated_desc"
]
ResponseFormat: TypeAlias = Literal["concise", "standard", "detailed"]

STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed")
PRIORITIES: tuple[Priority, ...] = ("low", "medium", "high", "critical")


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class AttachmentView(_View):
    id: int
    task_id: int
    kind: AttachmentKind
    url: str
    title: str | None = None
    content: str | None = None
    refreshed_at: datetime | None = None
    created_at: datetime


class TaskConcise(_View):
    id: int
    status: Status


class TaskStandard(TaskConcise):
    title: str
    priority: Priority
    eta: datetime | None = None
    created_at: datetime


class TaskDetailed(TaskStandard):
    description: str | None = None
    tags: tuple[str, ...] = ()
    updated_at: datetime
    attachments: tuple[AttachmentView, ...] = ()

    def standard(self) -> TaskStandard:
        return TaskStandard(
            id=self.id,
            status=self.status,
            title=self.title,
            priority=self.priority,
            eta=self.eta,
            created_at=self.created_at,
        )


TaskView: TypeAlias = TaskConcise | TaskStandard | TaskDetailed
