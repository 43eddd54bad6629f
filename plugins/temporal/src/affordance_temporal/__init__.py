"""Durable runs for affordance on Temporal: each model request and tool call an activity,
each destructive call's confirmation an update the run checks. See specs/DURABLE.md.

Names are resolved on first access (PEP 562): importing the package imports neither
temporalio nor the runtime, which keeps Temporal's workflow sandbox cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from affordance.plugins import lazy_exports

_EXPORTS: dict[str, str] = {
    "ConfirmationRefusedError": "affordance_temporal.errors",
    "DurableActivities": "affordance_temporal.activities",
    "DurableRun": "affordance_temporal.workflow",
    "DurableRunHandle": "affordance_temporal.client",
    "PromptRegistry": "affordance_temporal.registry",
    "RegistryMismatchError": "affordance_temporal.errors",
    "RunOptions": "affordance_temporal.options",
    "Settled": "affordance_temporal.client",
    "UnknownPromptError": "affordance_temporal.registry",
    "UnsupportedPromptError": "affordance_temporal.registry",
    "attach_run": "affordance_temporal.client",
    "durable_worker": "affordance_temporal.worker",
    "start_run": "affordance_temporal.client",
}

__all__ = [
    "ConfirmationRefusedError",
    "DurableActivities",
    "DurableRun",
    "DurableRunHandle",
    "PromptRegistry",
    "RegistryMismatchError",
    "RunOptions",
    "Settled",
    "UnknownPromptError",
    "UnsupportedPromptError",
    "attach_run",
    "durable_worker",
    "start_run",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:
    from affordance_temporal.activities import DurableActivities
    from affordance_temporal.client import DurableRunHandle, Settled, attach_run, start_run
    from affordance_temporal.errors import ConfirmationRefusedError, RegistryMismatchError
    from affordance_temporal.options import RunOptions
    from affordance_temporal.registry import (
        PromptRegistry,
        UnknownPromptError,
        UnsupportedPromptError,
    )
    from affordance_temporal.worker import durable_worker
    from affordance_temporal.workflow import DurableRun
