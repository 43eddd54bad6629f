"""The record of a run: what it publishes while it runs and what it leaves behind.

Above the model room, below tool calls and the loop; it runs nothing itself.

- ``bus``: the :class:`EventBus` (and :class:`PrivateEventBus`) the events go through;
- ``events``: the events a run publishes (``ToolInvoked``, ...);
- ``session``: :class:`Session`, typed state reduced from events, the sections the model
  opened, the runs suspended for confirmation and those a usage limit stopped;
- ``response``: :class:`PromptResponse`, everything an evaluation produced;
- ``confirmation``: the caller's ``approve()``/``deny()`` answers and the calls waiting for them;
- ``stream_events`` and ``streams``: the events of a streamed run and the :class:`EventStream`
  and :class:`AsyncEventStream` that ``stream()`` and ``astream()`` return;
- ``conversation``: :class:`ConversationHandle`, what a run needs of its ``conversation=``;
- ``usage_limit``: :class:`UsageLimitExceeded`, a run stopped at a usage limit (kept in its
  session to be resumed);
- ``trace_context``: the trace context a run hands to work that runs in another process
  (a tracing plugin's :class:`TracePropagator` writes and reads it);
- ``nesting``: which tool call a run is nested in (``ToolContext.nesting``), named by its
  ``EvaluationStarted``;
- ``log_context``: correlation fields for every record the library logs.
"""

from affordance._lazy import lazy_exports

# the events mark, when imported, the types every session keeps (``kept_by_default``): imported
# with the room, so a session finds them marked however the room was entered
from affordance.runtime.record import events as _events  # noqa: F401

# also the name of a submodule, which importing it would bind here: so bound now, not on first use
from affordance.runtime.record.log_context import log_context as log_context

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "AsyncEventStream": "affordance.runtime.record.streams",
    "Confirmation": "affordance.runtime.record.confirmation",
    "ConfirmationRequested": "affordance.runtime.record.events",
    "ConfirmationRequired": "affordance.runtime.record.stream_events",
    "ConfirmationResolved": "affordance.runtime.record.events",
    "ConversationHandle": "affordance.runtime.record.conversation",
    "EvaluationFailed": "affordance.runtime.record.events",
    "EvaluationStarted": "affordance.runtime.record.events",
    "EventBus": "affordance.runtime.record.bus",
    "EventStream": "affordance.runtime.record.streams",
    "HostedToolActivity": "affordance.runtime.record.stream_events",
    "HostedToolResult": "affordance.runtime.record.stream_events",
    "ModelAnswered": "affordance.runtime.record.events",
    "ModelRequestFailed": "affordance.runtime.record.events",
    "ModelRequestSent": "affordance.runtime.record.events",
    "ModelSwitched": "affordance.runtime.record.events",
    "OutputRetried": "affordance.runtime.record.events",
    "OverrideSkipped": "affordance.runtime.record.events",
    "PendingConfirmation": "affordance.runtime.record.confirmation",
    "PrivateEventBus": "affordance.runtime.record.bus",
    "PromptExecuted": "affordance.runtime.record.events",
    "PromptRendered": "affordance.runtime.record.events",
    "PromptResponse": "affordance.runtime.record.response",
    "Reducer": "affordance.runtime.record.session",
    "RefusalDelta": "affordance.runtime.record.stream_events",
    "RunFinished": "affordance.runtime.record.stream_events",
    "RunStarted": "affordance.runtime.record.stream_events",
    "Session": "affordance.runtime.record.session",
    "StreamEvent": "affordance.runtime.record.stream_events",
    "TextDelta": "affordance.runtime.record.stream_events",
    "ToolAttemptFailed": "affordance.runtime.record.events",
    "ToolCallArgumentsDelta": "affordance.runtime.record.stream_events",
    "ToolCallDenied": "affordance.runtime.record.events",
    "ToolCallFinished": "affordance.runtime.record.stream_events",
    "ToolCallResult": "affordance.runtime.record.response",
    "ToolCallStarted": "affordance.runtime.record.stream_events",
    "ToolHandlerStarted": "affordance.runtime.record.events",
    "ToolInvoked": "affordance.runtime.record.events",
    "TracePropagator": "affordance.runtime.record.trace_context",
    "TurnFinished": "affordance.runtime.record.stream_events",
    "UsageLimitExceeded": "affordance.runtime.record.usage_limit",
    "append": "affordance.runtime.record.session",
    "approve": "affordance.runtime.record.confirmation",
    "declined_result": "affordance.runtime.record.confirmation",
    "deny": "affordance.runtime.record.confirmation",
    "is_declined": "affordance.runtime.record.confirmation",
    "joined_trace": "affordance.runtime.record.trace_context",
    "log_context": "affordance.runtime.record.log_context",
    "replace_latest": "affordance.runtime.record.session",
    "set_trace_propagator": "affordance.runtime.record.trace_context",
    "trace_carrier": "affordance.runtime.record.trace_context",
    "upsert_by": "affordance.runtime.record.session",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
