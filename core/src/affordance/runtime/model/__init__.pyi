# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

from affordance.runtime.model.compaction import (
    DROPPED_RESULT,
    HistoryHook,
    compacted,
    drop_tool_results_older_than,
    keep_last_turns,
)
from affordance.runtime.model.connection import Model, model_name_of
from affordance.runtime.model.deltas import (
    Delta,
    DeltaError,
    HostedActivity,
    ProviderItem,
    RefusalPiece,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    ToolCallReady,
    TurnAssembler,
    TurnEnd,
    asent_whole,
    deltas_of,
    sent_whole,
)
from affordance.runtime.model.fallback import FallbackModel
from affordance.runtime.model.hosted_outputs import read_hosted_outputs
from affordance.runtime.model.limits import UsageLimits
from affordance.runtime.model.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.model.output import output_name, output_schema, parse_output
from affordance.runtime.model.prices import GenaiPrices, Prices, PricesUnavailableError
from affordance.runtime.model.serializers import (
    Arguments,
    OutputFormat,
    OutputSerializer,
    ToolDeclaration,
    ToolResultSerializer,
    ToolSerializer,
)
from affordance.runtime.model.turn import (
    NO_USAGE,
    PAUSED,
    TOOL_CHOICE_KEYWORDS,
    ModelRequest,
    ModelSwitch,
    ProviderTurn,
    ToolChoice,
    Usage,
    tool_choice_for_turn,
)

__all__ = [
    "DROPPED_RESULT",
    "NO_USAGE",
    "PAUSED",
    "TOOL_CHOICE_KEYWORDS",
    "Arguments",
    "AssistantMessage",
    "Delta",
    "DeltaError",
    "FallbackModel",
    "GenaiPrices",
    "HistoryHook",
    "HostedActivity",
    "Message",
    "Model",
    "ModelRequest",
    "ModelSwitch",
    "OutputFormat",
    "OutputSerializer",
    "Prices",
    "PricesUnavailableError",
    "ProviderItem",
    "ProviderTurn",
    "RefusalPiece",
    "TextPiece",
    "ToolCall",
    "ToolCallArguments",
    "ToolCallBegun",
    "ToolCallReady",
    "ToolChoice",
    "ToolDeclaration",
    "ToolResultMessage",
    "ToolResultSerializer",
    "ToolSerializer",
    "TurnAssembler",
    "TurnEnd",
    "Usage",
    "UsageLimits",
    "UserMessage",
    "asent_whole",
    "compacted",
    "deltas_of",
    "drop_tool_results_older_than",
    "keep_last_turns",
    "model_name_of",
    "output_name",
    "output_schema",
    "parse_output",
    "read_hosted_outputs",
    "sent_whole",
    "tool_choice_for_turn",
]
