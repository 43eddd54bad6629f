"""What the workflows of a task queue run with: the registry and the executor's settings.

Temporal builds workflow instances itself (and re-imports their module in its sandbox), so a
workflow cannot be handed its registry; it looks it up here by its task queue. The worker
helper installs the entry; this module is passed through the sandbox, so both sides share it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from affordance import RetryPolicy
from affordance.runtime import ToolPolicy
from affordance_temporal.registry import PromptRegistry

__all__ = ["WorkflowHost", "host_for", "install_host"]


@dataclass(frozen=True, slots=True)
class WorkflowHost:
    """Every worker of a task queue must hold the same registry and settings: the workflow's
    decisions (which calls may run, their activity options) depend on them."""

    registry: PromptRegistry
    policy: ToolPolicy | None = None
    default_timeout: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    log_content: bool = False


_HOSTS: dict[str, WorkflowHost] = {}
_LOCK = threading.Lock()


def install_host(task_queue: str, host: WorkflowHost) -> None:
    """Serve the workflows of ``task_queue`` with ``host`` in this process: the worker built
    last for a queue decides (a worker rebuilt in the same process replaces its entry)."""
    with _LOCK:
        _HOSTS[task_queue] = host


def host_for(task_queue: str) -> WorkflowHost:
    host = _HOSTS.get(task_queue)
    if host is None:
        raise LookupError(
            f"no prompt registry serves the workflows of task queue {task_queue!r} in this "
            "process; build the worker with affordance_temporal.durable_worker(...)"
        )
    return host
