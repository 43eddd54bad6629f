"""Everything a provider plugin builds on, in one import: the adapter base class, the
normalized model a provider reads and writes (messages, requests, turns, stream deltas), the
shared wire toolkit (clients, SSE, decoding, encoding, errors, retries, redaction) and the
serializer roles.

A provider plugin imports core only through the facades — this one, ``affordance``,
``affordance.plugins``, ``affordance.tools``, ``affordance.prompt``, ``affordance.runtime``,
``affordance.serde``, ``affordance.errors`` and ``affordance.clock`` — never a module below
them (an import-linter contract holds the shipped plugins to it): the modules may move, these
names stay.
"""

from affordance.adapters.base import ProviderAdapter
from affordance.adapters.clients import ClientPair
from affordance.adapters.decoding import (
    StreamFailedError,
    UnusableResponseError,
    adecode_stream,
    cut,
    decode_stream,
    decode_turn,
    malformed_response,
    parse_json,
    token_count,
)
from affordance.adapters.encoding import arguments_json, arguments_text, merge_extra_body
from affordance.adapters.errors import (
    describe_error_body,
    stainless_error,
    status_error,
    transport_error,
    transport_errors,
)
from affordance.adapters.hosted_request import HostedRequest
from affordance.adapters.redaction import bodies_withheld, withhold_bodies
from affordance.adapters.resolution import IdentityCache, SerializerFactories
from affordance.adapters.retry import (
    NO_REQUEST_RETRIES,
    RETRIED_STATUSES,
    RequestRetryPolicy,
    Transient,
    awith_retries,
    retry_after_seconds,
    transient_status,
    with_retries,
)
from affordance.adapters.schema_walk import (
    SCHEMA_KEYWORDS,
    SchemaPath,
    SchemaRefusedError,
    SchemaRules,
    SchemaWalk,
    copy_json,
    local_refs,
    recursive_ref,
    schema_pointer,
    schema_types,
)
from affordance.adapters.sse import SseEvent, aread_events, read_events
from affordance.adapters.stainless import JsonPost
from affordance.adapters.transport import ProviderErrorMapper, StainlessTransport
from affordance.runtime.deltas import (
    Delta,
    HostedActivity,
    ProviderItem,
    RefusalPiece,
    TextPiece,
    ToolCallArguments,
    ToolCallBegun,
    ToolCallReady,
    TurnEnd,
)
from affordance.runtime.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.model import Model
from affordance.runtime.output import output_name, output_schema
from affordance.runtime.serializers import (
    Arguments,
    OutputFormat,
    OutputSerializer,
    ToolDeclaration,
    ToolResultSerializer,
    ToolSerializer,
)
from affordance.runtime.turn import (
    NO_USAGE,
    PAUSED,
    TOOL_CHOICE_KEYWORDS,
    ModelRequest,
    ProviderTurn,
    ToolChoice,
    Usage,
)

__all__ = [
    "NO_REQUEST_RETRIES",
    "NO_USAGE",
    "PAUSED",
    "RETRIED_STATUSES",
    "SCHEMA_KEYWORDS",
    "TOOL_CHOICE_KEYWORDS",
    "Arguments",
    "AssistantMessage",
    "ClientPair",
    "Delta",
    "HostedActivity",
    "HostedRequest",
    "IdentityCache",
    "JsonPost",
    "Message",
    "Model",
    "ModelRequest",
    "OutputFormat",
    "OutputSerializer",
    "ProviderAdapter",
    "ProviderErrorMapper",
    "ProviderItem",
    "ProviderTurn",
    "RefusalPiece",
    "RequestRetryPolicy",
    "SchemaPath",
    "SchemaRefusedError",
    "SchemaRules",
    "SchemaWalk",
    "SerializerFactories",
    "SseEvent",
    "StainlessTransport",
    "StreamFailedError",
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
    "Transient",
    "TurnEnd",
    "UnusableResponseError",
    "Usage",
    "UserMessage",
    "adecode_stream",
    "aread_events",
    "arguments_json",
    "arguments_text",
    "awith_retries",
    "bodies_withheld",
    "copy_json",
    "cut",
    "decode_stream",
    "decode_turn",
    "describe_error_body",
    "local_refs",
    "malformed_response",
    "merge_extra_body",
    "output_name",
    "output_schema",
    "parse_json",
    "read_events",
    "recursive_ref",
    "retry_after_seconds",
    "schema_pointer",
    "schema_types",
    "stainless_error",
    "status_error",
    "token_count",
    "transient_status",
    "transport_error",
    "transport_errors",
    "with_retries",
    "withhold_bodies",
]
