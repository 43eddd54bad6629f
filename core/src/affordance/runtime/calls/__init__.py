"""Tool calls: from one call the model made to exactly one ``ToolResult``, never raising.

Above the record and model rooms, below the loop. What happens to *one* call lives here; which
calls of a turn run, wait for confirmation or are skipped is the loop's.

- ``context``: :class:`ToolContext`, what a handler receives, and the :class:`ToolHandler`
  signature; ``runner``: :class:`Runner`, the evaluate API a handler reaches through it;
- ``executor``: :class:`ToolExecutor` — lookup, policy, argument parsing and validation, the
  confirmation gate, the cache, then the handler with timeout and retries (``_attempts``),
  off the caller's thread where needed (``_offthread``, ``_coroutines``), with what it raises
  kept inside the call (``_guard``), a metadata-only log record (``_calllog``) and, when
  someone watches, ``ToolHandlerStarted``/``ToolAttemptFailed`` (``_handler_events``);
- ``prepared``: :class:`PreparedCall` and :class:`CallOutcome`, a call on its way through;
- ``cache``, ``policy``: :class:`ResultCache`; :class:`ToolPolicy` and :class:`AllowList`;
- ``failures``: the failed results the model reads, and :class:`ToolErrorInfo`;
- ``nested``: what a call running a nested evaluation hands its run when a call inside waits
  for confirmation (:class:`NestedWaiting`, :class:`NestedAnswers`);
- ``prompt_tool``: :func:`PromptTool`, a prompt the model calls as a tool;
- ``audit``: :class:`ToolCallAudit`, every call's metadata-only record as a JSON line in a file.
"""

from affordance.runtime.calls.audit import ToolCallAudit
from affordance.runtime.calls.cache import ResultCache
from affordance.runtime.calls.context import ToolContext, ToolHandler
from affordance.runtime.calls.executor import MAX_ARGUMENTS_SIZE, ToolExecutor
from affordance.runtime.calls.failures import ToolErrorInfo
from affordance.runtime.calls.nested import NestedAnswers, NestedWaiting
from affordance.runtime.calls.policy import AllowList, PolicyDecision, ToolPolicy
from affordance.runtime.calls.prepared import CallOutcome, PreparedCall
from affordance.runtime.calls.prompt_tool import PromptRequest, PromptTool
from affordance.runtime.calls.runner import Runner

__all__ = [
    "MAX_ARGUMENTS_SIZE",
    "AllowList",
    "CallOutcome",
    "NestedAnswers",
    "NestedWaiting",
    "PolicyDecision",
    "PreparedCall",
    "PromptRequest",
    "PromptTool",
    "ResultCache",
    "Runner",
    "ToolCallAudit",
    "ToolContext",
    "ToolErrorInfo",
    "ToolExecutor",
    "ToolHandler",
    "ToolPolicy",
]
