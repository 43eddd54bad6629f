"""The assistant's tools: pydantic params, results, and the handlers that act on the store.

Following seed 004: one consolidated ``query_tasks`` instead of narrow getters, a response
format to save tokens, errors that tell the model how to recover, and confirmation for the
destructive tools. The "use when" guidance lives in the sections' text (``prompt.py``); each
tool's ``description`` is one short line, and each field documents itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from affordance import Tool, ToolError, ToolResult, ToolValidationError
from taskchat.github import GitHubClient, GitHubRef, attachment_kind
from taskchat.store import TaskFilters, TaskStore
from taskchat.views import (
    AttachmentView,
    Priority,
    ResponseFormat,
    SortOrder,
    Status,
    TaskConcise,
    TaskDetailed,
    TaskStandard,
)

__all__ = [
    "AttachmentList",
    "AttachmentRef",
    "CreateAttachmentParams",
    "CreateTaskParams",
    "ListAttachmentsParams",
    "QueryTasksParams",
    "TaskQueryResult",
    "TaskRef",
    "TaskTools",
    "UpdateTaskParams",
]

_CONTENT_EXCERPT = 1000


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class QueryTasksParams(_Params):
    filters: TaskFilters = Field(
        default_factory=TaskFilters, description="Filter criteria; omit to match every task"
    )
    limit: int = Field(default=50, ge=1, le=200, description="Max tasks to return (default 50)")
    sort: SortOrder = Field(default="eta_asc", description="Sort order (default eta_asc)")
    response_format: ResponseFormat = Field(
        default="standard",
        description=(
            "concise: id and status; standard: also title, priority, eta, created_at; "
            "detailed: every field with description, tags and attachments"
        ),
    )


class TaskQueryResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    tasks: tuple[TaskDetailed | TaskStandard | TaskConcise, ...]
    total: int = Field(description="How many tasks match, before the limit")
    returned: int
    sort: SortOrder
    response_format: ResponseFormat


def _no_line_breaks(value: str | None) -> str | None:
    if value is not None and ("\n" in value or "\r" in value):
        raise ValueError("must be a single line")
    return value


class CreateTaskParams(_Params):
    title: str = Field(min_length=1, max_length=255, description="Task title, 1-255 characters")
    description: str | None = Field(
        default=None, max_length=10_000, description="Details (optional, markdown supported)"
    )
    priority: Priority = Field(
        default="medium", description="low, medium (default), high or critical"
    )
    eta: datetime | None = Field(
        default=None, description="Due date/time, ISO 8601; a date alone means midnight UTC"
    )
    tags: list[str] = Field(
        default_factory=list, max_length=20, description="Tags for categorization (optional)"
    )

    _title_single_line = field_validator("title")(_no_line_breaks)


class UpdateTaskParams(_Params):
    task_id: int = Field(ge=1, description="Id of the task to change (from query_tasks)")
    title: str | None = Field(default=None, min_length=1, max_length=255, description="New title")
    description: str | None = Field(default=None, max_length=10_000, description="New description")
    status: Status | None = Field(default=None, description="New status; completed marks it done")
    priority: Priority | None = Field(default=None, description="New priority")
    eta: datetime | None = Field(default=None, description="New due date/time, ISO 8601")
    tags: list[str] | None = Field(default=None, max_length=20, description="Replace the tags")
    clear: list[Literal["description", "eta", "tags"]] = Field(
        default_factory=list, description="Optional fields to empty"
    )

    _title_single_line = field_validator("title")(_no_line_breaks)


class TaskRef(_Params):
    task_id: int = Field(ge=1, description="Id of an existing task (from query_tasks)")


class ListAttachmentsParams(_Params):
    task_id: int = Field(ge=1, description="Id of the task whose attachments to list")
    include_content: bool = Field(
        default=False, description="Also return each attachment's fetched text (long)"
    )


class AttachmentList(BaseModel):
    model_config = ConfigDict(frozen=True)

    task_id: int
    attachments: tuple[AttachmentView, ...]


class CreateAttachmentParams(_Params):
    task_id: int = Field(ge=1, description="Id of the task to attach to")
    url: str = Field(
        max_length=2048,
        pattern=r"^https?://\S+$",
        description="http(s) URL; GitHub pull request and issue URLs are recognized",
    )
    title: str | None = Field(default=None, max_length=255, description="Label (optional)")


class AttachmentRef(_Params):
    attachment_id: int = Field(ge=1, description="Id of an attachment (from list_attachments)")


class TaskTools:
    """The tools, bound to the application's store and GitHub client."""

    def __init__(self, store: TaskStore, github: GitHubClient) -> None:
        self._store = store
        self._github = github

    # -- tasks ---------------------------------------------------------------------------------

    def task_tools(self) -> list[Tool[Any, Any]]:
        return [
            Tool[QueryTasksParams, TaskQueryResult](
                name="query_tasks",
                description=(
                    "Find tasks by id, status, priority, tags, text or due date, sorted and "
                    "limited. Returns matching tasks in the requested format and the total count."
                ),
                handler=self.query_tasks,
            ),
            Tool[CreateTaskParams, TaskDetailed](
                name="create_task",
                description=(
                    "Create a task (pending, medium priority unless given). "
                    "Returns the created task with its id and timestamps."
                ),
                handler=self.create_task,
            ),
            Tool[UpdateTaskParams, TaskDetailed](
                name="update_task",
                description=(
                    "Change a task's title, description, status, priority, ETA or tags; "
                    "status=completed marks it done. Returns the updated task."
                ),
                handler=self.update_task,
            ),
            Tool[TaskRef, TaskStandard](
                name="delete_task",
                description=(
                    "Delete a task and its attachments for good. The user must confirm; "
                    "returns the deleted task."
                ),
                handler=self.delete_task,
                destructive=True,
            ),
        ]

    def query_tasks(self, params: QueryTasksParams) -> ToolResult[TaskQueryResult]:
        found = self._store.query(
            params.filters,
            limit=params.limit,
            sort=params.sort,
            response_format=params.response_format,
        )
        result = TaskQueryResult(
            tasks=found.tasks,
            total=found.total,
            returned=len(found.tasks),
            sort=params.sort,
            response_format=params.response_format,
        )
        shown = f" (showing {len(found.tasks)})" if len(found.tasks) < found.total else ""
        noun = "task" if found.total == 1 else "tasks"
        return ToolResult.ok(result, message=f"Found {found.total} {noun}{shown}.")

    def create_task(self, params: CreateTaskParams) -> ToolResult[TaskDetailed]:
        task = self._store.create(
            title=params.title,
            description=params.description,
            priority=params.priority,
            eta=params.eta,
            tags=params.tags,
        )
        return ToolResult.ok(task, message=f"Created task #{task.id}.")

    def update_task(self, params: UpdateTaskParams) -> ToolResult[TaskDetailed]:
        changes: dict[str, Any] = {
            name: getattr(params, name)
            for name in ("title", "description", "status", "priority", "eta", "tags")
            if getattr(params, name) is not None
        }
        both = sorted(set(changes) & set(params.clear))
        if both:
            raise ToolValidationError(f"{', '.join(both)}: given a value and also cleared")
        for name in params.clear:
            changes[name] = [] if name == "tags" else None
        if not changes:
            raise ToolValidationError("name at least one field to change or to clear")
        task = self._store.update(params.task_id, changes)
        if task is None:
            raise _task_not_found(params.task_id)
        return ToolResult.ok(
            task, message=f"Updated task #{task.id}: {', '.join(sorted(changes))}."
        )

    def delete_task(self, params: TaskRef) -> ToolResult[TaskStandard]:
        task = self._store.delete(params.task_id)
        if task is None:
            raise _task_not_found(params.task_id)
        extra = f" and its {len(task.attachments)} attachment(s)" if task.attachments else ""
        return ToolResult.ok(task.standard(), message=f"Deleted task #{task.id}{extra}.")

    # -- attachments ---------------------------------------------------------------------------

    def attachment_tools(self) -> list[Tool[Any, Any]]:
        return [
            Tool[ListAttachmentsParams, AttachmentList](
                name="list_attachments",
                description=(
                    "List a task's attachments (GitHub pull requests, issues, links) with their "
                    "ids, optionally with the fetched text."
                ),
                handler=self.list_attachments,
            ),
            Tool[CreateAttachmentParams, AttachmentView](
                name="create_attachment",
                description=(
                    "Attach a URL to a task. GitHub pull request and issue URLs are recognized "
                    "and can be refreshed. Returns the attachment with its id."
                ),
                handler=self.create_attachment,
            ),
            Tool[AttachmentRef, AttachmentView](
                name="delete_attachment",
                description="Remove an attachment from its task for good. The user must confirm.",
                handler=self.delete_attachment,
                destructive=True,
            ),
            Tool[AttachmentRef, AttachmentView](
                name="refresh_attachment",
                description=(
                    "Fetch the current title, state and text of a GitHub pull request or issue "
                    "attachment and store them. Returns the refreshed attachment."
                ),
                handler=self.refresh_attachment,
            ),
        ]

    def list_attachments(self, params: ListAttachmentsParams) -> ToolResult[AttachmentList]:
        found = self._store.attachments(params.task_id)
        if found is None:
            raise _task_not_found(params.task_id)
        if not params.include_content:
            found = tuple(a.model_copy(update={"content": None}) for a in found)
        noun = "attachment" if len(found) == 1 else "attachments"
        return ToolResult.ok(
            AttachmentList(task_id=params.task_id, attachments=found),
            message=f"Task #{params.task_id} has {len(found)} {noun}.",
        )

    def create_attachment(self, params: CreateAttachmentParams) -> ToolResult[AttachmentView]:
        attachment = self._store.add_attachment(
            params.task_id, kind=attachment_kind(params.url), url=params.url, title=params.title
        )
        if attachment is None:
            raise _task_not_found(params.task_id)
        return ToolResult.ok(
            attachment,
            message=f"Attached #{attachment.id} ({attachment.kind}) to task #{params.task_id}.",
        )

    def delete_attachment(self, params: AttachmentRef) -> ToolResult[AttachmentView]:
        attachment = self._store.delete_attachment(params.attachment_id)
        if attachment is None:
            raise _attachment_not_found(params.attachment_id)
        return ToolResult.ok(
            attachment.model_copy(update={"content": None}),
            message=f"Deleted attachment #{attachment.id} of task #{attachment.task_id}.",
        )

    def refresh_attachment(self, params: AttachmentRef) -> ToolResult[AttachmentView]:
        attachment = self._store.attachment(params.attachment_id)
        if attachment is None:
            raise _attachment_not_found(params.attachment_id)
        ref = GitHubRef.from_url(attachment.url)
        if ref is None:
            raise ToolError(
                "NOT_REFRESHABLE",
                f"Attachment #{attachment.id} is a plain link, not a GitHub pull request or issue",
                recover_action="Tell the user only GitHub pull requests and issues refresh",
            )
        item = self._github.fetch(ref)
        saved = self._store.save_fetched(attachment.id, title=item.title, content=item.summary())
        if saved is None:
            raise _attachment_not_found(params.attachment_id)
        content = saved.content or ""
        if len(content) > _CONTENT_EXCERPT:
            saved = saved.model_copy(update={"content": content[: _CONTENT_EXCERPT - 1] + "…"})
        state = "merged" if item.merged else item.state
        return ToolResult.ok(
            saved, message=f"Refreshed attachment #{saved.id} from GitHub ({state})."
        )


def _task_not_found(task_id: int) -> ToolError:
    return ToolError(
        "TASK_NOT_FOUND",
        f"There is no task #{task_id}",
        recover_action="Call query_tasks to find the task's id",
    )


def _attachment_not_found(attachment_id: int) -> ToolError:
    return ToolError(
        "ATTACHMENT_NOT_FOUND",
        f"There is no attachment #{attachment_id}",
        recover_action="Call list_attachments with the task's id to find the attachment's id",
    )
