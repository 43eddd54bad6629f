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
    "AllowList": "affordance.runtime.calls.policy",
    "AsyncEventStream": "affordance.runtime.record.streams",
    "ConfirmationRequired": "affordance.runtime.record.stream_events",
    "Evaluator": "affordance.runtime.loop.evaluator",
    "EventBus": "affordance.runtime.record.bus",
    "EventStream": "affordance.runtime.record.streams",
    "HostedTool": "affordance.tools.hosted",
    "HostedToolActivity": "affordance.runtime.record.stream_events",
    "HostedToolCodec": "affordance.tools.hosted",
    "HostedToolConfig": "affordance.tools.hosted",
    "HostedToolOutput": "affordance.tools.hosted",
    "HostedToolResult": "affordance.runtime.record.stream_events",
    "HostedKindSection": "affordance.prompt.hosted_section",
    "HostedToolSection": "affordance.prompt.hosted_section",
    "MarkdownSection": "affordance.prompt.markdown",
    "ModelSwitched": "affordance.runtime.record.events",
    "ModelRequestSent": "affordance.runtime.record.events",
    "ModelRequestFailed": "affordance.runtime.record.events",
    "ModelAnswered": "affordance.runtime.record.events",
    "EvaluationStarted": "affordance.runtime.record.events",
    "EvaluationFailed": "affordance.runtime.record.events",
    "OpenSectionsParams": "affordance.prompt.disclosure",
    "OpenSectionsResult": "affordance.prompt.disclosure",
    "open_sections_tool": "affordance.prompt.disclosure",
    "Prompt": "affordance.prompt.template",
    "PromptEvaluationError": "affordance.errors",
    "PromptExecuted": "affordance.runtime.record.events",
    "PromptRenderError": "affordance.errors",
    "PromptRendered": "affordance.runtime.record.events",
    "PromptResponse": "affordance.runtime.record.response",
    "PromptTemplate": "affordance.prompt.template",
    "PromptValidationError": "affordance.errors",
    "ProviderAdapter": "affordance.adapters.base",
    "RefusalDelta": "affordance.runtime.record.stream_events",
    "RenderedPrompt": "affordance.prompt.rendered",
    "RetryPolicy": "affordance.tools.retry",
    "RunFinished": "affordance.runtime.record.stream_events",
    "RunStarted": "affordance.runtime.record.stream_events",
    "Section": "affordance.prompt.section",
    "SectionPath": "affordance.prompt.paths",
    "SectionVisibility": "affordance.prompt.section",
    "Session": "affordance.runtime.record.session",
    "StreamEvent": "affordance.runtime.record.stream_events",
    "TextDelta": "affordance.runtime.record.stream_events",
    "Tool": "affordance.tools.tool",
    "ToolCallArgumentsDelta": "affordance.runtime.record.stream_events",
    "ToolCallFinished": "affordance.runtime.record.stream_events",
    "ToolCallStarted": "affordance.runtime.record.stream_events",
    "ToolContext": "affordance.runtime.calls.context",
    "ToolError": "affordance.errors",
    "ToolExample": "affordance.tools.tool",
    "ToolExecutor": "affordance.runtime.calls.executor",
    "ToolHandler": "affordance.runtime.calls.context",
    "ToolInvoked": "affordance.runtime.record.events",
    "ToolRenderableResult": "affordance.tools.result",
    "ToolResult": "affordance.tools.result",
    "ToolValidationError": "affordance.errors",
    "UnsupportedHostedConfigError": "affordance.errors",
    "RequestExtrasConflictError": "affordance.errors",
    "TurnFinished": "affordance.runtime.record.stream_events",
    "approve": "affordance.runtime.record.confirmation",
    "Confirmation": "affordance.runtime.record.confirmation",
    "log_context": "affordance.runtime.record.log_context",
    "deny": "affordance.runtime.record.confirmation",
    "declined_result": "affordance.runtime.record.confirmation",
    "is_declined": "affordance.runtime.record.confirmation",
    "OutputRejected": "affordance.errors",
    "OutputValidationError": "affordance.errors",
    "UsageLimitExceeded": "affordance.runtime.record.usage_limit",
    "UsageLimits": "affordance.runtime.model.limits",
    "OutputRetried": "affordance.runtime.record.events",
    "Image": "affordance.attachments",
    "Document": "affordance.attachments",
    "AttachmentError": "affordance.errors",
    "AttachmentTooLargeError": "affordance.errors",
    "UnsupportedAttachmentError": "affordance.errors",
    "OverrideSkipped": "affordance.runtime.record.events",
    "ToolHandlerStarted": "affordance.runtime.record.events",
    "ToolAttemptFailed": "affordance.runtime.record.events",
    "OverridesError": "affordance.errors",
    "OverridesStore": "affordance.prompt.overrides.store",
    "FileOverridesStore": "affordance.prompt.overrides.store",
    "PromptOverrides": "affordance.prompt.overrides.document",
    "SkippedOverride": "affordance.prompt.overrides.applied",
    "OutputRetry": "affordance.runtime.record.stream_events",
    "PromptTool": "affordance.runtime.calls.prompt_tool",
    "ToolCallAudit": "affordance.runtime.calls.audit",
    "keep_last_turns": "affordance.runtime.model.compaction",
    "drop_tool_results_older_than": "affordance.runtime.model.compaction",
    "Conversation": "affordance.conversations.store",
    "ConversationStore": "affordance.conversations.store",
    "ConversationConflictError": "affordance.errors",
    "ConversationStoreError": "affordance.errors",
    "SQLiteConversationStore": "affordance.conversations.sqlite",
    "GenaiPrices": "affordance.runtime.model.prices",
    "FallbackAdapter": "affordance.runtime.loop.fallback_adapter",
    "PromptRequest": "affordance.runtime.calls.prompt_tool",
    "tool": "affordance.tools.decorator",
}

__all__ = [
    "AllowList",
    "AsyncEventStream",
    "AttachmentError",
    "AttachmentTooLargeError",
    "Confirmation",
    "ConfirmationRequired",
    "Conversation",
    "ConversationConflictError",
    "ConversationStore",
    "ConversationStoreError",
    "Document",
    "EvaluationFailed",
    "EvaluationStarted",
    "Evaluator",
    "EventBus",
    "EventStream",
    "FallbackAdapter",
    "FileOverridesStore",
    "GenaiPrices",
    "HostedKindSection",
    "HostedTool",
    "HostedToolActivity",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "HostedToolResult",
    "HostedToolSection",
    "Image",
    "MarkdownSection",
    "ModelAnswered",
    "ModelRequestFailed",
    "ModelRequestSent",
    "ModelSwitched",
    "OpenSectionsParams",
    "OpenSectionsResult",
    "OutputRejected",
    "OutputRetried",
    "OutputRetry",
    "OutputValidationError",
    "OverrideSkipped",
    "OverridesError",
    "OverridesStore",
    "Prompt",
    "PromptEvaluationError",
    "PromptExecuted",
    "PromptOverrides",
    "PromptRenderError",
    "PromptRendered",
    "PromptRequest",
    "PromptResponse",
    "PromptTemplate",
    "PromptTool",
    "PromptValidationError",
    "ProviderAdapter",
    "RefusalDelta",
    "RenderedPrompt",
    "RequestExtrasConflictError",
    "RetryPolicy",
    "RunFinished",
    "RunStarted",
    "SQLiteConversationStore",
    "Section",
    "SectionPath",
    "SectionVisibility",
    "Session",
    "SkippedOverride",
    "StreamEvent",
    "TextDelta",
    "Tool",
    "ToolAttemptFailed",
    "ToolCallArgumentsDelta",
    "ToolCallAudit",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolContext",
    "ToolError",
    "ToolExample",
    "ToolExecutor",
    "ToolHandler",
    "ToolHandlerStarted",
    "ToolInvoked",
    "ToolRenderableResult",
    "ToolResult",
    "ToolValidationError",
    "TurnFinished",
    "UnsupportedAttachmentError",
    "UnsupportedHostedConfigError",
    "UsageLimitExceeded",
    "UsageLimits",
    "__version__",
    "approve",
    "declined_result",
    "deny",
    "drop_tool_results_older_than",
    "is_declined",
    "keep_last_turns",
    "log_context",
    "open_sections_tool",
    "tool",
]


# public subpackages and modules, reachable as attributes without an import of their own
_SUBMODULES = frozenset(
    {
        "adapters",
        "attachments",
        "clock",
        "conversations",
        "errors",
        "plugins",
        "prompt",
        "runtime",
        "serde",
        "testing",
        "tools",
        "transcript",
    }
)

_export, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # importing it makes it an attribute: this runs once per name
        return importlib.import_module(f"{__name__}.{name}")
    return _export(name)


if TYPE_CHECKING:
    from affordance.adapters.base import ProviderAdapter
    from affordance.attachments import Document, Image
    from affordance.conversations.sqlite import SQLiteConversationStore
    from affordance.conversations.store import Conversation, ConversationStore
    from affordance.errors import (
        AttachmentError,
        AttachmentTooLargeError,
        ConversationConflictError,
        ConversationStoreError,
        OutputRejected,
        OutputValidationError,
        OverridesError,
        PromptEvaluationError,
        PromptRenderError,
        PromptValidationError,
        RequestExtrasConflictError,
        ToolError,
        ToolValidationError,
        UnsupportedAttachmentError,
        UnsupportedHostedConfigError,
    )
    from affordance.prompt.disclosure import (
        OpenSectionsParams,
        OpenSectionsResult,
        open_sections_tool,
    )
    from affordance.prompt.hosted_section import HostedKindSection, HostedToolSection
    from affordance.prompt.markdown import MarkdownSection
    from affordance.prompt.overrides.applied import SkippedOverride
    from affordance.prompt.overrides.document import PromptOverrides
    from affordance.prompt.overrides.store import FileOverridesStore, OverridesStore
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.prompt.section import Section, SectionVisibility
    from affordance.prompt.template import Prompt, PromptTemplate
    from affordance.runtime.calls.audit import ToolCallAudit
    from affordance.runtime.calls.context import ToolContext, ToolHandler
    from affordance.runtime.calls.executor import ToolExecutor
    from affordance.runtime.calls.policy import AllowList
    from affordance.runtime.calls.prompt_tool import PromptRequest, PromptTool
    from affordance.runtime.loop.evaluator import Evaluator
    from affordance.runtime.loop.fallback_adapter import FallbackAdapter
    from affordance.runtime.model.compaction import (
        drop_tool_results_older_than,
        keep_last_turns,
    )
    from affordance.runtime.model.limits import UsageLimits
    from affordance.runtime.model.prices import GenaiPrices
    from affordance.runtime.record.bus import EventBus
    from affordance.runtime.record.confirmation import (
        Confirmation,
        approve,
        declined_result,
        deny,
        is_declined,
    )
    from affordance.runtime.record.events import (
        EvaluationFailed,
        EvaluationStarted,
        ModelAnswered,
        ModelRequestFailed,
        ModelRequestSent,
        ModelSwitched,
        OutputRetried,
        OverrideSkipped,
        PromptExecuted,
        PromptRendered,
        ToolAttemptFailed,
        ToolHandlerStarted,
        ToolInvoked,
    )
    from affordance.runtime.record.log_context import log_context
    from affordance.runtime.record.response import PromptResponse
    from affordance.runtime.record.session import Session
    from affordance.runtime.record.stream_events import (
        ConfirmationRequired,
        HostedToolActivity,
        HostedToolResult,
        OutputRetry,
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
    from affordance.runtime.record.streams import AsyncEventStream, EventStream
    from affordance.runtime.record.usage_limit import UsageLimitExceeded
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
