"""What provider plugins build on: the adapter base class, the shared wire toolkit (clients,
decoding, encoding), the serializer roles and the normalized turn model."""

from affordance.adapters.base import ProviderAdapter
from affordance.adapters.clients import ClientPair
from affordance.adapters.decoding import (
    StreamFailedError,
    UnusableResponseError,
    adecode_stream,
    decode_stream,
    decode_turn,
    malformed_response,
    parse_json,
    token_count,
)
from affordance.adapters.encoding import arguments_json, arguments_text, merge_extra_body
from affordance.adapters.sse import SseEvent, aread_events, read_events
from affordance.runtime.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.serializers import (
    OutputFormat,
    OutputSerializer,
    ToolDeclaration,
    ToolResultSerializer,
    ToolSerializer,
)
from affordance.runtime.turn import ModelRequest, ProviderTurn, ToolChoice, Usage

__all__ = [
    "AssistantMessage",
    "ClientPair",
    "Message",
    "ModelRequest",
    "OutputFormat",
    "OutputSerializer",
    "ProviderAdapter",
    "ProviderTurn",
    "SseEvent",
    "StreamFailedError",
    "ToolCall",
    "ToolChoice",
    "ToolDeclaration",
    "ToolResultMessage",
    "ToolResultSerializer",
    "ToolSerializer",
    "UnusableResponseError",
    "Usage",
    "UserMessage",
    "adecode_stream",
    "aread_events",
    "arguments_json",
    "arguments_text",
    "decode_stream",
    "decode_turn",
    "malformed_response",
    "merge_extra_body",
    "parse_json",
    "read_events",
    "token_count",
]
