"""The tools: seed 004's guidance (one query tool, response formats, recoverable errors)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest

from affordance import ToolError, ToolValidationError
from taskchat.database import open_database
from taskchat.github import GitHubClient
from taskchat.prompt import AssistantContext, build_prompt
from taskchat.store import TaskFilters, TaskStore
from taskchat.tools import (
    AttachmentRef,
    CreateAttachmentParams,
    CreateTaskParams,
    ListAttachmentsParams,
    QueryTasksParams,
    TaskRef,
    TaskTools,
    UpdateTaskParams,
)


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[TaskTools]:
    database = open_database(f"sqlite:///{tmp_path / 'tools.db'}")
    with httpx.Client() as http:
        yield TaskTools(TaskStore(database), GitHubClient(http, api_url="http://127.0.0.1:9"))
    database.close()


def _eta(day: int) -> datetime:
    return datetime(2026, 3, day, tzinfo=timezone.utc)


@pytest.fixture
def seeded(tools: TaskTools) -> TaskTools:
    tools.create_task(CreateTaskParams(title="Pay rent", priority="high", eta=_eta(5)))
    tools.create_task(
        CreateTaskParams(title="Buy milk", priority="low", eta=_eta(3), tags=["Home"])
    )
    tools.create_task(
        CreateTaskParams(title="Plan trip", priority="critical", tags=["home", "fun"])
    )
    tools.create_task(CreateTaskParams(title="Call mom", description="about the trip"))
    tools.update_task(UpdateTaskParams(task_id=4, status="completed"))
    return tools


def _query(tools: TaskTools, **params: object) -> list[int]:
    result = tools.query_tasks(QueryTasksParams.model_validate(params))
    assert result.value is not None
    return [task.id for task in result.value.tasks]


def test_every_tool_description_is_one_short_ascii_line(tools: TaskTools) -> None:
    prompt = build_prompt(tools)
    rendered = prompt.render(AssistantContext(today="2026-03-02"))

    for tool in rendered.tools:
        assert 1 <= len(tool.description) <= 200, tool.name
        assert tool.description.isascii(), tool.name
        assert "\n" not in tool.description, tool.name
        # the "use when" guidance is in the section that carries the tool
        assert f"**{tool.name}**" in rendered.text, tool.name
    assert [t.name for t in rendered.tools if t.destructive] == ["delete_task", "delete_attachment"]


def test_params_are_pydantic_models_exported_as_json_schema(tools: TaskTools) -> None:
    [query, *_] = build_prompt(tools).render(AssistantContext(today="2026-03-02")).tools
    schema = query.parameters_schema()

    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == {"filters", "limit", "sort", "response_format"}
    assert schema["properties"]["filters"]["$ref"] == "#/$defs/TaskFilters"
    assert "default" not in schema["properties"]["filters"]
    assert schema["properties"]["response_format"]["enum"] == ["concise", "standard", "detailed"]
    status = schema["$defs"]["TaskFilters"]["properties"]["status"]["anyOf"][0]
    assert status["items"]["enum"] == ["pending", "in_progress", "completed"]


def test_query_filters_by_status_priority_tags_text_and_due_date(seeded: TaskTools) -> None:
    assert _query(seeded) == [2, 1, 3, 4]  # eta ascending, tasks without an eta last
    assert _query(seeded, filters={"status": ["completed"]}) == [4]
    assert _query(seeded, filters={"priority": ["high", "critical"]}) == [1, 3]
    assert _query(seeded, filters={"tags": ["home"]}) == [2, 3]
    assert _query(seeded, filters={"tags": ["#HOME", "fun"]}) == [3]
    assert _query(seeded, filters={"text": "TRIP"}) == [3, 4]  # title or description
    assert _query(seeded, filters={"due_before": "2026-03-04"}) == [2]
    assert _query(seeded, filters={"due_after": "2026-03-04"}) == [1]
    assert _query(seeded, filters={"task_ids": [3, 1]}) == [1, 3]
    assert _query(seeded, filters={"text": "100%_"}) == []  # LIKE wildcards are literal


def test_query_sorts_and_limits_and_reports_the_total(seeded: TaskTools) -> None:
    assert _query(seeded, sort="priority_desc") == [3, 1, 4, 2]
    assert _query(seeded, sort="eta_desc") == [1, 2, 3, 4]
    assert _query(seeded, sort="created_desc") == [4, 3, 2, 1]

    result = seeded.query_tasks(QueryTasksParams(limit=2))

    assert result.value is not None
    assert (result.value.total, result.value.returned) == (4, 2)
    assert result.message == "Found 4 tasks (showing 2)."


def test_the_response_format_chooses_the_fields_the_model_reads(seeded: TaskTools) -> None:
    def first(response_format: str) -> dict[str, object]:
        params = QueryTasksParams.model_validate(
            {"filters": {"task_ids": [2]}, "response_format": response_format}
        )
        rendered = json.loads(seeded.query_tasks(params).render())
        return dict(rendered["tasks"][0])

    assert first("concise") == {"id": 2, "status": "pending"}
    assert set(first("standard")) == {"id", "status", "title", "priority", "eta", "created_at"}
    assert set(first("detailed")) == {
        "id",
        "status",
        "title",
        "priority",
        "eta",
        "created_at",
        "tags",
        "updated_at",
        "attachments",
    }  # description is None, so it is left out


def test_create_applies_the_defaults_the_sections_promise(tools: TaskTools) -> None:
    task = tools.create_task(CreateTaskParams(title="  Water plants  ")).value

    assert task is not None
    assert (task.title, task.status, task.priority, task.eta) == (
        "Water plants",
        "pending",
        "medium",
        None,
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"title": ""},
        {"title": "x" * 256},
        {"title": "two\nlines"},
        {"title": "ok", "priority": "urgent"},
        {"title": "ok", "eta": "next tuesday-ish"},
        {"title": "ok", "colour": "red"},
    ],
)
def test_create_rejects_invalid_arguments(arguments: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="validation error"):
        CreateTaskParams.model_validate(arguments)


def test_update_changes_only_what_it_names_and_can_clear_fields(seeded: TaskTools) -> None:
    result = seeded.update_task(
        UpdateTaskParams(task_id=2, status="in_progress", clear=["eta", "tags"])
    )

    task = result.value
    assert task is not None
    assert (task.status, task.eta, task.tags, task.priority) == ("in_progress", None, (), "low")
    assert result.message == "Updated task #2: eta, status, tags."


def test_update_refuses_an_empty_or_contradictory_change(seeded: TaskTools) -> None:
    with pytest.raises(ToolValidationError, match="at least one field"):
        seeded.update_task(UpdateTaskParams(task_id=1))
    with pytest.raises(ToolValidationError, match="eta: given a value and also cleared"):
        seeded.update_task(UpdateTaskParams(task_id=1, eta=_eta(9), clear=["eta"]))


def test_missing_tasks_and_attachments_are_tool_errors_with_a_way_out(tools: TaskTools) -> None:
    calls = [
        lambda: tools.update_task(UpdateTaskParams(task_id=9, title="x")),
        lambda: tools.delete_task(TaskRef(task_id=9)),
        lambda: tools.list_attachments(ListAttachmentsParams(task_id=9)),
        lambda: tools.create_attachment(CreateAttachmentParams(task_id=9, url="https://a.b")),
    ]
    for call in calls:
        with pytest.raises(ToolError) as raised:
            call()
        assert raised.value.code == "TASK_NOT_FOUND"
        assert raised.value.recover_action == "Call query_tasks to find the task's id"
    with pytest.raises(ToolError) as missing:
        tools.delete_attachment(AttachmentRef(attachment_id=3))
    assert missing.value.code == "ATTACHMENT_NOT_FOUND"


def test_deleting_a_task_deletes_its_attachments(tools: TaskTools) -> None:
    tools.create_task(CreateTaskParams(title="Review"))
    tools.create_attachment(CreateAttachmentParams(task_id=1, url="https://github.com/o/r/pull/1"))
    tools.create_attachment(CreateAttachmentParams(task_id=1, url="https://example.com/spec"))

    result = tools.delete_task(TaskRef(task_id=1))

    assert result.message == "Deleted task #1 and its 2 attachment(s)."
    with pytest.raises(ToolError):
        tools.refresh_attachment(AttachmentRef(attachment_id=1))


def test_attachments_know_their_kind_and_list_without_content(tools: TaskTools) -> None:
    tools.create_task(CreateTaskParams(title="Review"))
    for url in (
        "https://github.com/octo/repo/pull/5",
        "https://github.com/octo/repo/issues/6#issuecomment-1",
        "https://example.com/notes",
    ):
        tools.create_attachment(CreateAttachmentParams(task_id=1, url=url))

    listed = tools.list_attachments(ListAttachmentsParams(task_id=1)).value

    assert listed is not None
    assert [a.kind for a in listed.attachments] == ["github_pull_request", "github_issue", "link"]
    assert all(a.content is None for a in listed.attachments)


def test_a_plain_link_cannot_be_refreshed(tools: TaskTools) -> None:
    tools.create_task(CreateTaskParams(title="Read"))
    tools.create_attachment(CreateAttachmentParams(task_id=1, url="https://example.com/notes"))

    with pytest.raises(ToolError) as raised:
        tools.refresh_attachment(AttachmentRef(attachment_id=1))

    assert raised.value.code == "NOT_REFRESHABLE"


def test_filters_ignore_empty_lists(tools: TaskTools) -> None:
    tools.create_task(CreateTaskParams(title="A"))

    assert _query(tools, filters=TaskFilters(status=[], priority=[]).model_dump()) == [1]


def test_ids_are_never_reused_after_the_newest_task_is_deleted(tools: TaskTools) -> None:
    tools.create_task(CreateTaskParams(title="First"))
    tools.create_task(CreateTaskParams(title="Second"))
    tools.delete_task(TaskRef(task_id=2))

    again = tools.create_task(CreateTaskParams(title="Third")).value

    assert again is not None
    assert again.id == 3
