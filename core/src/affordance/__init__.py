"""affordance: typed, fast LLM tool calling.

Importing this package is cheap on purpose: names are resolved on first access (PEP 562), so
``import affordance`` loads no provider SDK, no plugin and not even the runtime until used.
Everything a user needs is importable from here; the subpackages hold the same names by topic.
The subpackages are attributes too (``affordance.plugins.load_adapter``), imported on first
access; they are namespaces, not names, so ``__all__`` (and ``import *``) leaves them out.
"""

from affordance._lazy import lazy_exports

# also a name of the table: bound now (its module is tiny)
from affordance._version import __version__ as __version__

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "AllowList": "affordance.runtime.calls.policy",
    "AsyncEventStream": "affordance.runtime.record.streams",
    "AttachmentError": "affordance.errors",
    "AttachmentTooLargeError": "affordance.errors",
    "Confirmation": "affordance.runtime.record.confirmation",
    "ConfirmationRequired": "affordance.runtime.record.stream_events",
    "Conversation": "affordance.conversations.store",
    "ConversationConflictError": "affordance.errors",
    "ConversationStore": "affordance.conversations.store",
    "ConversationStoreError": "affordance.errors",
    "Document": "affordance.attachments",
    "EvaluationFailed": "affordance.runtime.record.events",
    "EvaluationStarted": "affordance.runtime.record.events",
    "Evaluator": "affordance.runtime.loop.evaluator",
    "EventBus": "affordance.runtime.record.bus",
    "EventStream": "affordance.runtime.record.streams",
    "FallbackAdapter": "affordance.runtime.loop.fallback_adapter",
    "FileOverridesStore": "affordance.prompt.overrides.store",
    "GenaiPrices": "affordance.runtime.model.prices",
    "HostedKindSection": "affordance.prompt.hosted_section",
    "HostedTool": "affordance.tools.hosted",
    "HostedToolActivity": "affordance.runtime.record.stream_events",
    "HostedToolCodec": "affordance.tools.hosted",
    "HostedToolConfig": "affordance.tools.hosted",
    "HostedToolOutput": "affordance.tools.hosted",
    "HostedToolResult": "affordance.runtime.record.stream_events",
    "HostedToolSection": "affordance.prompt.hosted_section",
    "Image": "affordance.attachments",
    "MarkdownSection": "affordance.prompt.markdown",
    "ModelAnswered": "affordance.runtime.record.events",
    "ModelRequestFailed": "affordance.runtime.record.events",
    "ModelRequestSent": "affordance.runtime.record.events",
    "ModelSwitched": "affordance.runtime.record.events",
    "OpenSectionsParams": "affordance.prompt.disclosure",
    "OpenSectionsResult": "affordance.prompt.disclosure",
    "OutputRejected": "affordance.errors",
    "OutputRetried": "affordance.runtime.record.events",
    "OutputRetry": "affordance.runtime.record.stream_events",
    "OutputValidationError": "affordance.errors",
    "OverrideSkipped": "affordance.runtime.record.events",
    "OverridesError": "affordance.errors",
    "OverridesStore": "affordance.prompt.overrides.store",
    "Prompt": "affordance.prompt.template",
    "PromptEvaluationError": "affordance.errors",
    "PromptExecuted": "affordance.runtime.record.events",
    "PromptOverrides": "affordance.prompt.overrides.document",
    "PromptRenderError": "affordance.errors",
    "PromptRendered": "affordance.runtime.record.events",
    "PromptRequest": "affordance.runtime.calls.prompt_tool",
    "PromptResponse": "affordance.runtime.record.response",
    "PromptTemplate": "affordance.prompt.template",
    "PromptTool": "affordance.runtime.calls.prompt_tool",
    "PromptValidationError": "affordance.errors",
    "ProviderAdapter": "affordance.adapters.base",
    "RefusalDelta": "affordance.runtime.record.stream_events",
    "RenderedPrompt": "affordance.prompt.rendered",
    "RequestExtrasConflictError": "affordance.errors",
    "RetryPolicy": "affordance.tools.retry",
    "RunFinished": "affordance.runtime.record.stream_events",
    "RunStarted": "affordance.runtime.record.stream_events",
    "SQLiteConversationStore": "affordance.conversations.sqlite",
    "Section": "affordance.prompt.section",
    "SectionPath": "affordance.prompt.paths",
    "SectionVisibility": "affordance.prompt.section",
    "Session": "affordance.runtime.record.session",
    "SkippedOverride": "affordance.prompt.overrides.applied",
    "StreamEvent": "affordance.runtime.record.stream_events",
    "TextDelta": "affordance.runtime.record.stream_events",
    "Tool": "affordance.tools.tool",
    "ToolAttemptFailed": "affordance.runtime.record.events",
    "ToolCallArgumentsDelta": "affordance.runtime.record.stream_events",
    "ToolCallAudit": "affordance.runtime.calls.audit",
    "ToolCallFinished": "affordance.runtime.record.stream_events",
    "ToolCallStarted": "affordance.runtime.record.stream_events",
    "ToolContext": "affordance.runtime.calls.context",
    "ToolError": "affordance.errors",
    "ToolExample": "affordance.tools.tool",
    "ToolExecutor": "affordance.runtime.calls.executor",
    "ToolHandler": "affordance.runtime.calls.context",
    "ToolHandlerStarted": "affordance.runtime.record.events",
    "ToolInvoked": "affordance.runtime.record.events",
    "ToolRenderableResult": "affordance.tools.result",
    "ToolResult": "affordance.tools.result",
    "ToolValidationError": "affordance.errors",
    "TurnFinished": "affordance.runtime.record.stream_events",
    "UnsupportedAttachmentError": "affordance.errors",
    "UnsupportedHostedConfigError": "affordance.errors",
    "UsageLimitExceeded": "affordance.runtime.record.usage_limit",
    "UsageLimits": "affordance.runtime.model.limits",
    "__version__": "affordance._version",
    "approve": "affordance.runtime.record.confirmation",
    "declined_result": "affordance.runtime.record.confirmation",
    "deny": "affordance.runtime.record.confirmation",
    "drop_tool_results_older_than": "affordance.runtime.model.compaction",
    "is_declined": "affordance.runtime.record.confirmation",
    "keep_last_turns": "affordance.runtime.model.compaction",
    "log_context": "affordance.runtime.record.log_context",
    "open_sections_tool": "affordance.prompt.disclosure",
    "tool": "affordance.tools.decorator",
}
__all__ = list(_EXPORTS)

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


def __getattr__(name: str) -> object:
    if name in _SUBMODULES:  # importing it makes it an attribute: this runs once per name
        import importlib  # not at import: `import affordance` loads only what it must

        return importlib.import_module(f"{__name__}.{name}")
    return _export(name)
