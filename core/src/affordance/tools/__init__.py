"""Tools: typed functions the model may call, their results, context and hosted tools."""

from affordance.tools.context import ToolContext
from affordance.tools.decorator import tool
from affordance.tools.hosted import HostedTool, HostedToolCodec, HostedToolConfig, HostedToolOutput
from affordance.tools.result import ToolRenderableResult, ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool, ToolExample, ToolHandler

__all__ = [
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "RetryPolicy",
    "Tool",
    "ToolContext",
    "ToolExample",
    "ToolHandler",
    "ToolRenderableResult",
    "ToolResult",
    "tool",
]
