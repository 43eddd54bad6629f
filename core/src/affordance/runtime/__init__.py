"""The runtime: tool execution, the evaluation loop, events and sessions."""

from affordance.prompt.disclosure import DisclosureRequest
from affordance.runtime.actions import Finished, RunCalls, SendRequest
from affordance.runtime.cache import ResultCache
from affordance.runtime.confirmation import (
    Confirmation,
    PendingConfirmation,
    approve,
    declined_result,
    deny,
    is_declined,
)
from affordance.runtime.context import ToolContext, ToolHandler
from affordance.runtime.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    PromptExecuted,
    PromptRendered,
    ToolCallDenied,
    ToolInvoked,
)
from affordance.runtime.executor import CallOutcome, PreparedCall, ToolExecutor
from affordance.runtime.failures import ToolErrorInfo
from affordance.runtime.loop import Evaluation
from affordance.runtime.model import Model
from affordance.runtime.policy import AllowList, PolicyDecision, ToolPolicy
from affordance.runtime.response import PromptResponse, ToolCallResult
from affordance.runtime.session import Session

__all__ = [
    "AllowList",
    "CallOutcome",
    "Confirmation",
    "ConfirmationRequested",
    "ConfirmationResolved",
    "DisclosureRequest",
    "Evaluation",
    "EventBus",
    "Finished",
    "Model",
    "PendingConfirmation",
    "PolicyDecision",
    "PreparedCall",
    "PromptExecuted",
    "PromptRendered",
    "PromptResponse",
    "ResultCache",
    "RunCalls",
    "SendRequest",
    "Session",
    "ToolCallDenied",
    "ToolCallResult",
    "ToolContext",
    "ToolErrorInfo",
    "ToolExecutor",
    "ToolHandler",
    "ToolInvoked",
    "ToolPolicy",
    "approve",
    "declined_result",
    "deny",
    "is_declined",
]
