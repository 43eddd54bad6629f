"""The runtime: tool execution, the evaluation loop, events and sessions."""

from affordance.prompt.disclosure import DisclosureRequest
from affordance.runtime.confirmation import (
    Confirmation,
    PendingConfirmation,
    approve,
    declined_result,
    deny,
    is_declined,
)
from affordance.runtime.events import (
    ConfirmationRequested,
    ConfirmationResolved,
    EventBus,
    PromptExecuted,
    PromptRendered,
    ToolCallDenied,
    ToolInvoked,
)
from affordance.runtime.executor import ToolExecutor
from affordance.runtime.policy import AllowList, PolicyDecision, ToolPolicy
from affordance.runtime.response import PromptResponse, ToolCallResult
from affordance.runtime.session import Session

__all__ = [
    "AllowList",
    "Confirmation",
    "ConfirmationRequested",
    "ConfirmationResolved",
    "DisclosureRequest",
    "EventBus",
    "PendingConfirmation",
    "PolicyDecision",
    "PromptExecuted",
    "PromptRendered",
    "PromptResponse",
    "Session",
    "ToolCallDenied",
    "ToolCallResult",
    "ToolExecutor",
    "ToolInvoked",
    "ToolPolicy",
    "approve",
    "declined_result",
    "deny",
    "is_declined",
]
