"""Seed 004's tool chaining on taskchat's own tools: steps run through the executor one by one,
``"$name"`` taken from the context and from earlier outputs, a destructive step waiting for
approval and the chain resuming by call id, the first failure stopping it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from affordance import (
    EventBus,
    MarkdownSection,
    PromptEvaluationError,
    PromptTemplate,
    ToolInvoked,
    approve,
)
from affordance.testing import ScriptedAdapter
from taskchat.database import open_database
from taskchat.github import GitHubClient
from taskchat.store import TaskStore
from taskchat.tools import TaskTools

PR = "https://github.com/acme/app/pull/123"


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[TaskTools]:
    database = open_database(f"sqlite:///{tmp_path / 'chain.db'}")
    with httpx.Client() as http:
        yield TaskTools(TaskStore(database), GitHubClient(http, api_url="http://127.0.0.1:9"))
    database.close()


def prompt(tools: TaskTools) -> PromptTemplate[None]:
    return PromptTemplate(
        name="tasks",
        sections=[
            MarkdownSection(title="Tasks", template="Tasks.", tools=tools.task_tools()),
            MarkdownSection(title="Links", template="Links.", tools=tools.attachment_tools()),
        ],
    )


def test_the_seeds_chain_creates_a_task_and_attaches_the_pr_to_it(tools):
    seen: list[str] = []
    bus = EventBus()
    bus.subscribe(ToolInvoked, lambda event: seen.append(event.name))
    response = ScriptedAdapter().run_chain(
        prompt(tools),
        [
            {"tool": "create_task", "args": {"title": "Review PR #123"}},
            {"tool": "create_attachment", "args": {"task_id": "$id", "url": "$pr_url"}},
        ],
        context={"pr_url": PR},
        bus=bus,
    )
    assert response.finish_reason == "chain_complete"
    created, attached = (r.result.value for r in response.tool_results)
    assert (attached.url, created.title) == (PR, "Review PR #123")
    assert seen == ["create_task", "create_attachment"]  # the executor's events, as for a model


def test_a_destructive_step_waits_for_approval_and_the_chain_resumes_by_call_id(tools):
    adapter = ScriptedAdapter()
    tasks = prompt(tools)
    steps = [
        {"tool": "create_task", "args": {"title": "Obsolete"}},
        {"tool": "delete_task", "args": {"task_id": "$id"}},
        {"tool": "query_tasks", "args": {}},
    ]
    waiting = adapter.run_chain(tasks, steps)
    (pending,) = waiting.pending_confirmations
    assert (pending.name, pending.arguments) == ("delete_task", {"task_id": 1})
    done = adapter.run_chain(
        tasks, steps, session=waiting.session, confirmations={pending.call_id: approve()}
    )
    assert done.finish_reason == "chain_complete"
    assert [r.name for r in done.tool_results] == ["create_task", "delete_task", "query_tasks"]


def test_the_first_failed_step_stops_the_chain_with_one_result_per_step_run(tools):
    response = asyncio.run(
        ScriptedAdapter().arun_chain(
            prompt(tools),
            [
                {"tool": "create_attachment", "args": {"task_id": 99, "url": PR}},
                {"tool": "create_task", "args": {"title": "never"}},
            ],
        )
    )
    assert response.finish_reason == "chain_stopped"
    (only,) = response.tool_results
    assert not only.result.success


def test_a_reference_nothing_holds_is_a_clear_error(tools):
    with pytest.raises(PromptEvaluationError, match=r"refers to \$task_id") as refused:
        ScriptedAdapter().run_chain(
            prompt(tools), [{"tool": "update_task", "args": {"task_id": "$task_id"}}]
        )
    assert refused.value.phase == "chain"


def test_a_literal_dollar_is_written_twice(tools):
    response = ScriptedAdapter().run_chain(
        prompt(tools), [{"tool": "create_task", "args": {"title": "$$5 coffee"}}]
    )
    assert response.tool_results[0].result.value.title == "$5 coffee"


@pytest.mark.parametrize(
    "steps",
    [[{"args": {}}], [{"tool": "create_task", "args": ["x"]}], [{"tool": "x", "arg": {}}], ["x"]],
)
def test_a_step_of_another_shape_is_refused_before_anything_runs(tools, steps):
    with pytest.raises(TypeError):
        ScriptedAdapter().run_chain(prompt(tools), steps)
