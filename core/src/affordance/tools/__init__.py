"""Tools: typed functions the model may call, their results and hosted tools.

The context a handler receives (``ToolContext``, ``ToolHandler``) belongs to the runtime that
builds it: ``affordance.runtime.context``.
"""

from affordance.tools.decorator import tool
from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolConfig, HostedToolOutput
from affordance.tools.result import ToolRenderableResult, ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool, ToolExample

__all__ = [
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "RetryPolicy",
    "Tool",
    "ToolExample",
    "ToolRenderableResult",
    "ToolResult",
    "tool",
]
