"""The runtime: tool execution, the evaluation loop, events and sessions.

It is four rooms, each a package with its own facade, each importing only the rooms below it
(an import-linter contract holds the order):

- ``affordance.runtime.loop`` — the run: the sans-IO ``Evaluation``, its actions, the plain and
  streaming drivers, and the ``Evaluator`` (the evaluate API);
- ``affordance.runtime.calls`` — one tool call: ``ToolContext``, ``ToolExecutor``, retries,
  timeouts and threads, the cache, the policy, the failed results the model reads;
- ``affordance.runtime.record`` — what a run publishes and leaves: events, the ``Session``, the
  ``PromptResponse``, confirmations, stream events, log context;
- ``affordance.runtime.model`` — the model's side: ``Model``, requests and turns, the
  transcript, stream deltas, serializer roles, structured output.

This facade holds the names users, plugins and tests take from the runtime.
"""

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "MAX_ARGUMENTS_SIZE": "affordance.runtime.calls",
    "AllowList": "affordance.runtime.calls",
    "AssistantMessage": "affordance.runtime.model",
    "AsyncEventStream": "affordance.runtime.record",
    "CallOutcome": "affordance.runtime.calls",
    "Confirmation": "affordance.runtime.record",
    "ConfirmationRequested": "affordance.runtime.record",
    "ConfirmationRequired": "affordance.runtime.record",
    "ConfirmationResolved": "affordance.runtime.record",
    "Delta": "affordance.runtime.model",
    "DisclosureRequest": "affordance.prompt.disclosure",
    "Evaluation": "affordance.runtime.loop",
    "Evaluator": "affordance.runtime.loop",
    "EventBus": "affordance.runtime.record",
    "EventStream": "affordance.runtime.record",
    "FallbackAdapter": "affordance.runtime.loop",
    "FallbackModel": "affordance.runtime.model",
    "Finished": "affordance.runtime.loop",
    "HostedToolActivity": "affordance.runtime.record",
    "HostedToolResult": "affordance.runtime.record",
    "Message": "affordance.runtime.model",
    "Model": "affordance.runtime.model",
    "ModelRequest": "affordance.runtime.model",
    "NestedAnswers": "affordance.runtime.calls",
    "NestedWaiting": "affordance.runtime.calls",
    "PendingConfirmation": "affordance.runtime.record",
    "PolicyDecision": "affordance.runtime.calls",
    "PreparedCall": "affordance.runtime.calls",
    "PrivateEventBus": "affordance.runtime.record",
    "PromptExecuted": "affordance.runtime.record",
    "PromptRendered": "affordance.runtime.record",
    "PromptResponse": "affordance.runtime.record",
    "PromptTool": "affordance.runtime.calls",
    "ProviderTurn": "affordance.runtime.model",
    "RefusalDelta": "affordance.runtime.record",
    "RequestEvents": "affordance.runtime.loop",
    "ResultCache": "affordance.runtime.calls",
    "RunCalls": "affordance.runtime.loop",
    "RunFinished": "affordance.runtime.record",
    "RunStarted": "affordance.runtime.record",
    "Runner": "affordance.runtime.calls",
    "SendRequest": "affordance.runtime.loop",
    "Session": "affordance.runtime.record",
    "StreamEvent": "affordance.runtime.record",
    "TextDelta": "affordance.runtime.record",
    "ToolAttemptFailed": "affordance.runtime.record",
    "ToolCall": "affordance.runtime.model",
    "ToolCallArgumentsDelta": "affordance.runtime.record",
    "ToolCallDenied": "affordance.runtime.record",
    "ToolCallFinished": "affordance.runtime.record",
    "ToolCallResult": "affordance.runtime.record",
    "ToolCallStarted": "affordance.runtime.record",
    "ToolContext": "affordance.runtime.calls",
    "ToolErrorInfo": "affordance.runtime.calls",
    "ToolExecutor": "affordance.runtime.calls",
    "ToolHandler": "affordance.runtime.calls",
    "ToolHandlerStarted": "affordance.runtime.record",
    "ToolInvoked": "affordance.runtime.record",
    "ToolPolicy": "affordance.runtime.calls",
    "ToolResultMessage": "affordance.runtime.model",
    "TracePropagator": "affordance.runtime.record",
    "TurnFinished": "affordance.runtime.record",
    "Usage": "affordance.runtime.model",
    "UserMessage": "affordance.runtime.model",
    "approve": "affordance.runtime.record",
    "declined_result": "affordance.runtime.record",
    "deltas_of": "affordance.runtime.model",
    "deny": "affordance.runtime.record",
    "is_declined": "affordance.runtime.record",
    "joined_trace": "affordance.runtime.record",
    "log_context": "affordance.runtime.record",
    "set_trace_propagator": "affordance.runtime.record",
    "trace_carrier": "affordance.runtime.record",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
