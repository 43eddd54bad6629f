# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

from affordance import adapters as adapters
from affordance import attachments as attachments
from affordance import clock as clock
from affordance import conversations as conversations
from affordance import errors as errors
from affordance import plugins as plugins
from affordance import prompt as prompt
from affordance import runtime as runtime
from affordance import serde as serde
from affordance import testing as testing
from affordance import tools as tools
from affordance import transcript as transcript
from affordance._version import __version__
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
