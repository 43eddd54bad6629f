"""affordance: typed, fast LLM tool calling.

Importing this package is cheap on purpose: names are resolved on first access (PEP 562), so
``import affordance`` loads no provider SDK, no plugin and not even the runtime until used.
Everything a user needs is importable from here; the subpackages hold the same names by topic.
The subpackages are attributes too (``affordance.plugins.load_adapter``), imported on first
access; they are namespaces, not names, so ``__all__`` (and ``import *``) leaves them out.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from affordance._lazy import lazy_exports
from affordance._version import __version__

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "AllowList": "affordance.runtime.policy",
    "AsyncEventStream": "affordance.runtime.streaming",
    "ConfirmationRequired": "affordance.runtime.stream_events",
    "Evaluator": "affordance.runtime.evaluator",
    "EventBus": "affordance.runtime.events",
    "EventStream": "affordance.runtime.streaming",
    "HostedTool": "affordance.tools.hosted",
    "HostedToolActivity": "affordance.runtime.stream_events",
    "HostedToolCodec": "affordance.tools.hosted",
    "HostedToolConfig": "affordance.tools.hosted",
    "HostedToolOutput": "affordance.tools.hosted",
    "HostedToolResult": "affordance.runtime.stream_events",
    "HostedKindSection": "affordance.prompt.hosted_section",
    "HostedToolSection": "affordance.prompt.hosted_section",
    "MarkdownSection": "affordance.prompt.markdown",
    "OpenSectionsParams": "affordance.prompt.disclosure",
    "OpenSectionsResult": "affordance.prompt.disclosure",
    "open_sections_tool": "affordance.prompt.disclosure",
    "Prompt": "affordance.prompt.template",
    "PromptEvaluationError": "affordance.errors",
    "PromptExecuted": "affordance.runtime.events",
    "PromptRenderError": "affordance.errors",
    "PromptRendered": "affordance.runtime.events",
    "PromptResponse": "affordance.runtime.response",
    "PromptTemplate": "affordance.prompt.template",
    "PromptValidationError": "affordance.errors",
    "ProviderAdapter": "affordance.adapters.base",
    "RefusalDelta": "affordance.runtime.stream_events",
    "RenderedPrompt": "affordance.prompt.rendered",
    "RetryPolicy": "affordance.tools.retry",
    "RunFinished": "affordance.runtime.stream_events",
    "RunStarted": "affordance.runtime.stream_events",
    "Section": "affordance.prompt.section",
    "SectionPath": "affordance.prompt.paths",
    "SectionVisibility": "affordance.prompt.section",
    "Session": "affordance.runtime.session",
    "StreamEvent": "affordance.runtime.stream_events",
    "TextDelta": "affordance.runtime.stream_events",
    "Tool": "affordance.tools.tool",
    "ToolCallArgumentsDelta": "affordance.runtime.stream_events",
    "ToolCallFinished": "affordance.runtime.stream_events",
    "ToolCallStarted": "affordance.runtime.stream_events",
    "ToolContext": "affordance.runtime.context",
    "ToolError": "affordance.errors",
    "ToolExample": "affordance.tools.tool",
    "ToolExecutor": "affordance.runtime.executor",
    "ToolHandler": "affordance.runtime.context",
    "ToolInvoked": "affordance.runtime.events",
    "ToolRenderableResult": "affordance.tools.result",
    "ToolResult": "affordance.tools.result",
    "ToolValidationError": "affordance.errors",
    "UnsupportedHostedConfigError": "affordance.errors",
    "RequestExtrasConflictError": "affordance.errors",
    "TurnFinished": "affordance.runtime.stream_events",
    "approve": "affordance.runtime.confirmation",
    "Confirmation": "affordance.runtime.confirmation",
    "log_context": "affordance.runtime.log_context",
    "deny": "affordance.runtime.confirmation",
    "declined_result": "affordance.runtime.confirmation",
    "is_declined": "affordance.runtime.confirmation",
    "tool": "affordance.tools.decorator",
}

__all__ = [
    "AllowList",
    "AsyncEventStream",
    "Confirmation",
    "ConfirmationRequired",
    "Evaluator",
    "EventBus",
    "EventStream",
    "HostedKindSection",
    "HostedTool",
    "HostedToolActivity",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "HostedToolResult",
    "HostedToolSection",
    "MarkdownSection",
    "OpenSectionsParams",
    "OpenSectionsResult",
    "Prompt",
    "PromptEvaluationError",
    "PromptExecuted",
    "PromptRenderError",
    "PromptRendered",
    "PromptResponse",
    "PromptTemplate",
    "PromptValidationError",
    "ProviderAdapter",
    "RefusalDelta",
    "RenderedPrompt",
    "RequestExtrasConflictError",
    "RetryPolicy",
    "RunFinished",
    "RunStarted",
    "Section",
    "SectionPath",
    "SectionVisibility",
    "Session",
    "StreamEvent",
    "TextDelta",
    "Tool",
    "ToolCallArgumentsDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolContext",
    "ToolError",
    "ToolExample",
    "ToolExecutor",
    "ToolHandler",
    "ToolInvoked",
    "ToolRenderableResult",
    "ToolResult",
    "ToolValidationError",
    "TurnFinished",
    "UnsupportedHostedConfigError",
    "__version__",
    "approve",
    "declined_result",
    "deny",
    "is_declined",
    "log_context",
    "open_sections_tool",
    "tool",
]


# public subpackages and modules, reachable as attributes without an import of their own
_SUBMODULES = frozenset(
    {"adapters", "clock", "errors", "plugins", "prompt", "runtime", "serde", "testing", "tools"}
)

_export, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # importing it makes it an attribute: this runs once per name
        return importlib.import_module(f"{__name__}.{name}")
    return _export(name)


if TYPE_CHECKING:
    from affordance.adapters.base import ProviderAdapter
    from affordance.errors import (
        PromptEvaluationError,
        PromptRenderError,
        PromptValidationError,
        RequestExtrasConflictError,
        ToolError,
        ToolValidationError,
        UnsupportedHostedConfigError,
    )
    from affordance.prompt.disclosure import (
        OpenSectionsParams,
        OpenSectionsResult,
        open_sections_tool,
    )
    from affordance.prompt.hosted_section import HostedKindSection, HostedToolSection
    from affordance.prompt.markdown import MarkdownSection
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.prompt.section import Section, SectionVisibility
    from affordance.prompt.template import Prompt, PromptTemplate
    from affordance.runtime.confirmation import (
        Confirmation,
        approve,
        declined_result,
        deny,
        is_declined,
    )
    from affordance.runtime.context import ToolContext, ToolHandler
    from affordance.runtime.evaluator import Evaluator
    from affordance.runtime.events import EventBus, PromptExecuted, PromptRendered, ToolInvoked
    from affordance.runtime.executor import ToolExecutor
    from affordance.runtime.log_context import log_context
    from affordance.runtime.policy import AllowList
    from affordance.runtime.response import PromptResponse
    from affordance.runtime.session import Session
    from affordance.runtime.stream_events import (
        ConfirmationRequired,
        HostedToolActivity,
        HostedToolResult,
        RefusalDelta,
        RunFinished,
        RunStarted,
        StreamEvent,
        TextDelta,
        ToolCallArgumentsDelta,
        ToolCallFinished,
        ToolCallStarted,
        TurnFinished,
    )
    from affordance.runtime.streaming import AsyncEventStream, EventStream
    from affordance.tools.decorator import tool
    from affordance.tools.hosted import (
        HostedTool,
        HostedToolCodec,
        HostedToolConfig,
        HostedToolOutput,
    )
    from affordance.tools.result import ToolRenderableResult, ToolResult
    from affordance.tools.retry import RetryPolicy
    from affordance.tools.tool import Tool, ToolExample
