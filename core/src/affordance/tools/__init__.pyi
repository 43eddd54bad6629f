# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

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
from affordance.tools.hosted_items import MAX_WARNINGS, ItemReader, Position
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
