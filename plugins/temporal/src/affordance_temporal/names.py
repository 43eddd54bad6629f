"""The names a durable run is known by in Temporal: its workflow type, activities, queries and
updates. Clients in other languages use these strings."""

from __future__ import annotations

__all__ = [
    "CONFIRM_UPDATE",
    "LIST_TOOLS_ACTIVITY",
    "MODEL_ACTIVITY",
    "PENDING_QUERY",
    "RETRYABLE_TOOL_FAILURE",
    "SETTLED_UPDATE",
    "STATUS_QUERY",
    "TOOL_ACTIVITY",
    "WORKFLOW_NAME",
]

WORKFLOW_NAME = "affordance.DurableRun"
MODEL_ACTIVITY = "affordance.model_turn"
TOOL_ACTIVITY = "affordance.tool_call"
LIST_TOOLS_ACTIVITY = "affordance.list_tools"
"""Lists the tools of the sections that list them at render, once, at the start of a run
whose prompt has such sections (an MCP server's)."""
CONFIRM_UPDATE = "confirm"
"""The update answering pending calls; it refuses answers for calls that are not pending."""
PENDING_QUERY = "pending_confirmations"
STATUS_QUERY = "status"
SETTLED_UPDATE = "settled"
RETRYABLE_TOOL_FAILURE = "RetryableToolFailure"
"""The failure type of a tool attempt Temporal should try again (a retryable ``ToolError``)."""
