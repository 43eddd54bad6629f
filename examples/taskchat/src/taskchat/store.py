"""``TaskStore``: tasks, tags and attachments in the database, as views.

Every method is one short transaction. Methods return views (``views.py``), never rows, so
nothing outside this module touches a SQLAlchemy session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Select, case, func, or_, select
from sqlalchemy.orm import selectinload

from taskchat.database import AttachmentRow, Database, TagRow, TaskRow
from taskchat.views import (
    PRIORITIES,
    STATUSES,
    AttachmentKind,
    AttachmentView,
    Priority,
    ResponseFormat,
    SortOrder,
    Status,
    TaskConcise,
    TaskDetailed,
    TaskStandard,
    TaskView,
)

__all__ = ["QueryOutcome", "TaskFilters", "TaskStore", "utc_now"]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class TaskFilters(BaseModel):
    """Which tasks to return; every filter given must match (an empty object matches all)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_ids: list[int] | None = Field(
        default=None,
        description="Only these task ids (use to fetch one task by id)",
        max_length=100,
    )
    status: list[Status] | None = Field(default=None, description="Any of these statuses")
    priority: list[Priority] | None = Field(default=None, description="Any of these priorities")
    tags: list[str] | None = Field(default=None, description="Tasks carrying all of these tags")
    text: str | None = Field(
        default=None,
        description="Case-insensitive text in the title or description",
        min_length=1,
        max_length=200,
    )
    due_before: datetime | None = Field(
        default=None, description="ETA before this ISO 8601 date/time (tasks without one excluded)"
    )
    due_after: datetime | None = Field(
        default=None, description="ETA at or after this ISO 8601 date/time"
    )


@dataclass(frozen=True, slots=True)
class QueryOutcome:
    tasks: tuple[TaskView, ...]
    total: int


_PRIORITY_RANK = case({p: rank for rank, p in enumerate(PRIORITIES)}, value=TaskRow.priority)


class TaskStore:
    """CRUD and queries over tasks and their attachments."""

    def __init__(self, database: Database, clock: Callable[[], datetime] = utc_now) -> None:
        self._sessions = database.sessions
        self._clock = clock

    # -- tasks ---------------------------------------------------------------------------------

    def query(
        self,
        filters: TaskFilters,
        *,
        limit: int = 50,
        sort: SortOrder = "eta_asc",
        response_format: ResponseFormat = "standard",
    ) -> QueryOutcome:
        statement = _filtered(filters)
        with self._sessions() as session:
            total = session.scalar(select(func.count()).select_from(statement.subquery())) or 0
            page = statement.order_by(*_order(sort)).limit(limit)
            if response_format == "detailed":  # the only format showing tags and attachments
                page = page.options(selectinload(TaskRow.tags), selectinload(TaskRow.attachments))
            rows = session.scalars(page).all()
            return QueryOutcome(tuple(_view(row, response_format) for row in rows), total)

    def get(self, task_id: int) -> TaskDetailed | None:
        with self._sessions() as session:
            row = session.get(TaskRow, task_id)
            return _detailed(row) if row is not None else None

    def create(
        self,
        *,
        title: str,
        description: str | None = None,
        status: Status = "pending",
        priority: Priority = "medium",
        eta: datetime | None = None,
        tags: Sequence[str] = (),
    ) -> TaskDetailed:
        now = self._clock()
        with self._sessions.begin() as session:
            row = TaskRow(
                title=title,
                description=description,
                status=status,
                priority=priority,
                eta=_aware(eta),
                created_at=now,
                updated_at=now,
                tags=[TagRow(tag=tag) for tag in _normalized_tags(tags)],
                attachments=[],
            )
            session.add(row)
            session.flush()
            return _detailed(row)

    def update(self, task_id: int, changes: dict[str, Any]) -> TaskDetailed | None:
        """Apply ``changes`` (field -> new value; ``None`` clears an optional field)."""
        with self._sessions.begin() as session:
            row = session.get(TaskRow, task_id)
            if row is None:
                return None
            for name, value in changes.items():
                if name == "tags":
                    wanted = _normalized_tags(value or ())
                    row.tags = [t for t in row.tags if t.tag in wanted]
                    have = {t.tag for t in row.tags}
                    row.tags.extend(TagRow(tag=tag) for tag in wanted if tag not in have)
                elif name == "eta":
                    row.eta = _aware(value)
                elif name in ("title", "description", "status", "priority"):
                    setattr(row, name, value)
                else:
                    raise ValueError(f"unknown task field {name!r}")
            row.updated_at = self._clock()
            session.flush()
            return _detailed(row)

    def delete(self, task_id: int) -> TaskDetailed | None:
        """Delete a task with its tags and attachments; returns what was deleted."""
        with self._sessions.begin() as session:
            row = session.get(TaskRow, task_id)
            if row is None:
                return None
            deleted = _detailed(row)
            session.delete(row)
            return deleted

    # -- attachments ---------------------------------------------------------------------------

    def attachments(self, task_id: int) -> tuple[AttachmentView, ...] | None:
        """The task's attachments, or ``None`` when the task does not exist."""
        with self._sessions() as session:
            row = session.get(TaskRow, task_id)
            if row is None:
                return None
            return tuple(_attachment(a) for a in row.attachments)

    def attachment(self, attachment_id: int) -> AttachmentView | None:
        with self._sessions() as session:
            row = session.get(AttachmentRow, attachment_id)
            return _attachment(row) if row is not None else None

    def add_attachment(
        self, task_id: int, *, kind: AttachmentKind, url: str, title: str | None
    ) -> AttachmentView | None:
        with self._sessions.begin() as session:
            if session.get(TaskRow, task_id) is None:
                return None
            row = AttachmentRow(
                task_id=task_id, kind=kind, url=url, title=title, created_at=self._clock()
            )
            session.add(row)
            session.flush()
            return _attachment(row)

    def delete_attachment(self, attachment_id: int) -> AttachmentView | None:
        with self._sessions.begin() as session:
            row = session.get(AttachmentRow, attachment_id)
            if row is None:
                return None
            deleted = _attachment(row)
            session.delete(row)
            return deleted

    def save_fetched(
        self, attachment_id: int, *, title: str, content: str
    ) -> AttachmentView | None:
        """Store freshly fetched content; ``None`` if the attachment was deleted meanwhile."""
        with self._sessions.begin() as session:
            row = session.get(AttachmentRow, attachment_id)
            if row is None:
                return None
            row.title = title[:255]
            row.content = content
            row.refreshed_at = self._clock()
            session.flush()
            return _attachment(row)


def _filtered(filters: TaskFilters) -> Select[TaskRow]:
    statement = select(TaskRow)
    if filters.task_ids is not None:
        statement = statement.where(TaskRow.id.in_(filters.task_ids))
    if filters.status:
        statement = statement.where(TaskRow.status.in_(filters.status))
    if filters.priority:
        statement = statement.where(TaskRow.priority.in_(filters.priority))
    for tag in _normalized_tags(filters.tags or ()):
        statement = statement.where(TaskRow.id.in_(select(TagRow.task_id).where(TagRow.tag == tag)))
    if filters.text:
        needle = filters.text.lower()
        statement = statement.where(
            or_(
                func.lower(TaskRow.title).contains(needle, autoescape=True),
                func.lower(TaskRow.description).contains(needle, autoescape=True),
            )
        )
    if filters.due_before is not None:
        statement = statement.where(TaskRow.eta < _aware(filters.due_before))
    if filters.due_after is not None:
        statement = statement.where(TaskRow.eta >= _aware(filters.due_after))
    return statement


def _order(sort: SortOrder) -> tuple[Any, ...]:
    if sort == "eta_asc":
        return (TaskRow.eta.is_(None), TaskRow.eta.asc(), TaskRow.id)
    if sort == "eta_desc":
        return (TaskRow.eta.is_(None), TaskRow.eta.desc(), TaskRow.id)
    if sort == "priority_desc":
        return (_PRIORITY_RANK.desc(), TaskRow.eta.is_(None), TaskRow.eta.asc(), TaskRow.id)
    if sort == "created_desc":
        return (TaskRow.created_at.desc(), TaskRow.id.desc())
    return (TaskRow.updated_at.desc(), TaskRow.id.desc())


def _normalized_tags(tags: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tag in tags:
        cleaned = tag.strip().lstrip("#").lower()
        if cleaned:
            seen.setdefault(cleaned[:40])
    return list(seen)


def _aware(value: datetime | None) -> datetime | None:
    """Naive datetimes from the model are taken as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=timezone.utc)


def _view(row: TaskRow, response_format: ResponseFormat) -> TaskView:
    if response_format == "concise":
        return TaskConcise(id=row.id, status=_status(row.status))
    if response_format == "standard":
        return _standard(row)
    return _detailed(row)


def _standard(row: TaskRow) -> TaskStandard:
    return TaskStandard(
        id=row.id,
        status=_status(row.status),
        title=row.title,
        priority=_priority(row.priority),
        eta=row.eta,
        created_at=row.created_at,
    )


def _detailed(row: TaskRow) -> TaskDetailed:
    return TaskDetailed(
        id=row.id,
        status=_status(row.status),
        title=row.title,
        priority=_priority(row.priority),
        eta=row.eta,
        created_at=row.created_at,
        description=row.description,
        tags=tuple(t.tag for t in row.tags),
        updated_at=row.updated_at,
        attachments=tuple(_attachment(a) for a in row.attachments),
    )


def _attachment(row: AttachmentRow) -> AttachmentView:
    return AttachmentView.model_validate(
        {
            "id": row.id,
            "task_id": row.task_id,
            "kind": row.kind,
            "url": row.url,
            "title": row.title,
            "content": row.content,
            "refreshed_at": row.refreshed_at,
            "created_at": row.created_at,
        }
    )


def _status(value: str) -> Status:
    if value not in STATUSES:
        raise ValueError(f"unknown status {value!r} in the database")
    return value


def _priority(value: str) -> Priority:
    if value not in PRIORITIES:
        raise ValueError(f"unknown priority {value!r} in the database")
    return value
