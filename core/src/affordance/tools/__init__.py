"""Tools: typed functions the model may call, their results and hosted tools.

The context a handler receives (``ToolContext``, ``ToolHandler``) belongs to the runtime that
builds it: ``affordance.runtime.calls.context``.
"""

from affordance._lazy import lazy_exports

# also the name of a submodule (the Tool class's), which importing it would bind here: so bound
# now, not on first use
from affordance.tools.decorator import tool as tool

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "MAX_WARNINGS": "affordance.tools.hosted_items",
    "NO_RETRY": "affordance.tools.retry",
    "OK": "affordance.tools.result",
    "AsksForApproval": "affordance.tools.hosted_approval",
    "DeclaresRequestExtras": "affordance.tools.hosted",
    "DeclaresRequestHeaders": "affordance.tools.hosted",
    "HostedApprovalRequest": "affordance.tools.hosted_approval",
    "HostedKind": "affordance.tools.hosted_kind",
    "HostedTool": "affordance.tools.hosted",
    "HostedToolCodec": "affordance.tools.hosted",
    "HostedToolConfig": "affordance.tools.hosted",
    "HostedToolOutput": "affordance.tools.hosted",
    "ItemReader": "affordance.tools.hosted_items",
    "Position": "affordance.tools.hosted_items",
    "RetryPolicy": "affordance.tools.retry",
    "Tool": "affordance.tools.tool",
    "ToolExample": "affordance.tools.tool",
    "ToolRenderableResult": "affordance.tools.result",
    "ToolResult": "affordance.tools.result",
    "config_as": "affordance.tools.hosted",
    "refuse_unhonoured": "affordance.tools.hosted",
    "render_value": "affordance.tools.result",
    "tool": "affordance.tools.decorator",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
