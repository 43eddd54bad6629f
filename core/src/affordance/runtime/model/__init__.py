"""The model's side of a run: what the loop sends a model and what comes back.

The runtime's lowest room; it knows nothing of tools running, events or the loop.

- ``connection``: :class:`Model`, the protocol a model connection implements;
- ``turn``: :class:`ModelRequest` (one request), :class:`ProviderTurn` (the normalized answer),
  :class:`Usage` and the per-turn ``tool_choice`` rule;
- ``messages``: the provider-neutral transcript (:class:`ToolCall` and the three messages);
- ``deltas``: the pieces of a streamed turn and the :class:`TurnAssembler` joining them;
- ``serializers``: the serializer roles of the provider contract (tools, results, output);
- ``compaction``: the ``history=`` hook — what a request carries of a long conversation,
  checked to keep every call with its result;
- ``output``: structured output — the schema a model is asked to follow, parsing the answer;
- ``limits``: :class:`UsageLimits`, how much one run may spend (requests, calls, tokens, cost);
- ``prices``: :class:`Prices`, what a turn's usage cost (:class:`GenaiPrices`: genai-prices);
- ``hosted_outputs``: reading a response's hosted-tool outputs through their codecs, checked
  against the output types their kinds are registered with;
- ``hosted_approvals``: reading the approvals a response's hosted tools wait for, and writing
  the caller's answers, through their codecs;
- ``fallback``: :class:`FallbackModel`, a model made of models — a request one fails goes to
  the next;
- ``attachment_rules``: :class:`AttachmentSupport`, the images and documents a model carries,
  and what a run does with the ones it cannot (refuse the caller's, leave a tool's out).
"""

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
