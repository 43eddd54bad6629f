# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

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
