"""``durable_worker``: a Temporal worker serving durable runs, their model requests, their
tool calls, or any mix of the three.

One worker process holds one adapter (built from its environment) and the deployment's
registry. Scale by running more processes of the same kind; split the kinds with task queues
(``RunOptions.model_task_queue`` / ``tool_task_queue``), e.g. a queue per provider served by
workers that hold that provider's key. ``specs/DURABLE.md`` describes the layouts.
"""

from __future__ import annotations

from typing import Any

from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from affordance import Evaluator, ToolExecutor
from affordance_temporal._hosts import WorkflowHost, install_host
from affordance_temporal.activities import DurableActivities
from affordance_temporal.registry import PromptRegistry
from affordance_temporal.workflow import DurableRun

__all__ = ["PASSED_THROUGH", "durable_worker", "workflow_runner"]

PASSED_THROUGH = (
    "affordance",
    "affordance_temporal",
    "pydantic",
    "pydantic_core",
    "typing_extensions",
)
"""Modules the sandbox shares with the worker instead of re-importing them for every run:
the library (its code is deterministic where the workflow uses it) and pydantic, which serde
loads on first use for pydantic params."""


def durable_worker(
    client: Client,
    registry: PromptRegistry,
    *,
    task_queue: str,
    adapter: Evaluator | None = None,
    executor: ToolExecutor | None = None,
    workflows: bool = True,
    model_requests: bool | None = None,
    tool_calls: bool = True,
    sandboxed: bool = True,
    **worker_options: Any,
) -> Worker:
    """A worker for ``task_queue``; run it with ``await worker.run()`` or ``async with``.

    ``adapter`` serves model requests (default: when one is given). ``executor`` (default:
    the adapter's) supplies the tool policy, default timeout and retry policy — every worker
    of a task queue must use the same ones, and the same registry. ``worker_options`` go to
    ``temporalio.worker.Worker`` (``max_concurrent_activities``, ``identity``...).
    """
    registry.build_all()
    if executor is None:
        executor = adapter.executor if adapter is not None else ToolExecutor()
    if model_requests is None:
        model_requests = adapter is not None
    if workflows:
        install_host(
            task_queue,
            WorkflowHost(
                registry=registry,
                policy=executor.policy,
                default_timeout=executor.default_timeout,
                retry=executor.retry,
                log_content=executor.log_content,
            ),
        )
    activities = DurableActivities(registry, adapter, executor)
    if not (workflows or model_requests or tool_calls):
        raise ValueError("a durable worker must serve workflows, model requests or tool calls")
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[DurableRun] if workflows else [],
        activities=activities.activities(model=model_requests, tools=tool_calls),
        workflow_runner=workflow_runner(registry, sandboxed=sandboxed),
        **worker_options,
    )


def workflow_runner(registry: PromptRegistry, *, sandboxed: bool = True) -> WorkflowRunner:
    """Temporal's sandbox with the library, pydantic and the modules of the registry's
    factories passed through; or no sandbox (``sandboxed=False``, a little faster: the
    workflow's determinism does not rest on the sandbox, see specs/DURABLE.md)."""
    if not sandboxed:
        return UnsandboxedWorkflowRunner()
    modules = {*PASSED_THROUGH, *registry.modules()}
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*sorted(modules))
    return SandboxedWorkflowRunner(restrictions=restrictions)
