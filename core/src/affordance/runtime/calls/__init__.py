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

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "MAX_ARGUMENTS_SIZE": "affordance.runtime.calls.executor",
    "AllowList": "affordance.runtime.calls.policy",
    "CallOutcome": "affordance.runtime.calls.prepared",
    "NestedAnswers": "affordance.runtime.calls.nested",
    "NestedWaiting": "affordance.runtime.calls.nested",
    "PolicyDecision": "affordance.runtime.calls.policy",
    "PreparedCall": "affordance.runtime.calls.prepared",
    "PromptRequest": "affordance.runtime.calls.prompt_tool",
    "PromptTool": "affordance.runtime.calls.prompt_tool",
    "ResultCache": "affordance.runtime.calls.cache",
    "Runner": "affordance.runtime.calls.runner",
    "ToolCallAudit": "affordance.runtime.calls.audit",
    "ToolContext": "affordance.runtime.calls.context",
    "ToolErrorInfo": "affordance.runtime.calls.failures",
    "ToolExecutor": "affordance.runtime.calls.executor",
    "ToolHandler": "affordance.runtime.calls.context",
    "ToolPolicy": "affordance.runtime.calls.policy",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
