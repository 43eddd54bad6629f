"""Tools: typed functions the model may call, their results and hosted tools.

The context a handler receives (``ToolContext``, ``ToolHandler``) belongs to the runtime that
builds it: ``affordance.runtime.calls.context``.
"""

from typing import TYPE_CHECKING, Any

from affordance.tools.decorator import tool
from affordance.tools.hosted import (
    DeclaresRequestExtras,
    DeclaresRequestHeaders,
    HostedTool,
    HostedToolCodec,
    HostedToolConfig,
    HostedToolOutput,
    config_as,
    refuse_unhonoured,
)
from affordance.tools.hosted_approval import AsksForApproval, HostedApprovalRequest
from affordance.tools.hosted_kind import HostedKind
from affordance.tools.result import OK, ToolRenderableResult, ToolResult, render_value
from affordance.tools.retry import NO_RETRY, RetryPolicy
from affordance.tools.tool import Tool, ToolExample

__all__ = [
    "MAX_WARNINGS",
    "NO_RETRY",
    "OK",
    "AsksForApproval",
    "DeclaresRequestExtras",
    "DeclaresRequestHeaders",
    "HostedApprovalRequest",
    "HostedKind",
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "ItemReader",
    "Position",
    "RetryPolicy",
    "Tool",
    "ToolExample",
    "ToolRenderableResult",
    "ToolResult",
    "config_as",
    "refuse_unhonoured",
    "render_value",
    "tool",
]

_HOSTED_ITEMS = frozenset({"MAX_WARNINGS", "ItemReader", "Position"})

if TYPE_CHECKING:
    from affordance.tools.hosted_items import MAX_WARNINGS, ItemReader, Position


def __getattr__(name: str) -> Any:
    """What hosted-tool codecs read responses with, imported on first use (it brings
    ``logging``, which the prompt API does not load)."""
    if name in _HOSTED_ITEMS:
        from affordance.tools import hosted_items

        return getattr(hosted_items, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
