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

from affordance.runtime.record.bus import EventBus, PrivateEventBus
from affordance.runtime.record.confirmation import (
    Confirmation,
    PendingConfirmation,
    approve,
    declined_result,
    deny,
    is_declined,
)
from affordance.runtime.record.conversation import ConversationHandle
from affordance.runtime.record.events import (
    ConfirmationRequested,
    ConfirmationResolved,
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
    ToolCallDenied,
    ToolHandlerStarted,
    ToolInvoked,
)
from affordance.runtime.record.log_context import log_context
from affordance.runtime.record.response import PromptResponse, ToolCallResult
from affordance.runtime.record.session import (
    Reducer,
    Session,
    append,
    replace_latest,
    upsert_by,
)
from affordance.runtime.record.stream_events import (
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
from affordance.runtime.record.streams import AsyncEventStream, EventStream
from affordance.runtime.record.trace_context import (
    TracePropagator,
    joined_trace,
    set_trace_propagator,
    trace_carrier,
)
from affordance.runtime.record.usage_limit import UsageLimitExceeded

__all__ = [
    "AsyncEventStream",
    "Confirmation",
    "ConfirmationRequested",
    "ConfirmationRequired",
    "ConfirmationResolved",
    "ConversationHandle",
    "EvaluationFailed",
    "EvaluationStarted",
    "EventBus",
    "EventStream",
    "HostedToolActivity",
    "HostedToolResult",
    "ModelAnswered",
    "ModelRequestFailed",
    "ModelRequestSent",
    "ModelSwitched",
    "OutputRetried",
    "OverrideSkipped",
    "PendingConfirmation",
    "PrivateEventBus",
    "PromptExecuted",
    "PromptRendered",
    "PromptResponse",
    "Reducer",
    "RefusalDelta",
    "RunFinished",
    "RunStarted",
    "Session",
    "StreamEvent",
    "TextDelta",
    "ToolAttemptFailed",
    "ToolCallArgumentsDelta",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallResult",
    "ToolCallStarted",
    "ToolHandlerStarted",
    "ToolInvoked",
    "TracePropagator",
    "TurnFinished",
    "UsageLimitExceeded",
    "append",
    "approve",
    "declined_result",
    "deny",
    "is_declined",
    "joined_trace",
    "log_context",
    "replace_latest",
    "set_trace_propagator",
    "trace_carrier",
    "upsert_by",
]
