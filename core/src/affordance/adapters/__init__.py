"""Everything a provider plugin builds on, in one import: its model's base classes
(``ProviderModel``, and ``WireModel``: a wire format plus a transport), the adapter that holds
the model (``ProviderAdapter``, the runner users call), the normalized model a provider
reads and writes (messages, requests, turns, stream deltas), the transports (``StainlessTransport``,
``RetryingTransport``), the shared wire toolkit (clients, SSE, raw HTTP responses, decoding,
encoding, attachments as content parts, runs of messages sharing an entry, assistant turns
resent, strict budgets, errors, retries, redaction) and the serializer roles.

A provider plugin imports core only through the facades — this one, ``affordance``,
``affordance.plugins``, ``affordance.tools``, ``affordance.prompt``, ``affordance.runtime``,
``affordance.serde``, ``affordance.errors``, ``affordance.clock``, ``affordance.attachments``
and ``affordance.transcript`` — never a module below
them (an import-linter contract holds the shipped plugins to it): the modules may move, these
names stay.
"""

from affordance.adapters.attachment_parts import content_parts, url_media_type
from affordance.adapters.base import ProviderAdapter
from affordance.adapters.clients import ClientPair
from affordance.adapters.decoding import (
    StreamFailedError,
    UnusableResponseError,
    UsageFields,
    adecode_stream,
    cut,
    decode_stream,
    decode_turn,
    expect,
    finish_reason,
    malformed_response,
    parse_json,
    string_or_none,
    token_count,
)
from affordance.adapters.delta_turn import turn_from_deltas
from affordance.adapters.encoding import arguments_json, arguments_text, merge_extra_body
from affordance.adapters.environment import SharedClient, require_api_key
from affordance.adapters.errors import (
    describe_error_body,
    stainless_error,
    status_error,
    transport_error,
    transport_errors,
)
from affordance.adapters.form_runs import RunForm, joined_transcript, run_entry
from affordance.adapters.hosted_request import HostedRequest
from affordance.adapters.model import ProviderModel
from affordance.adapters.raw_http import (
    achunks,
    aclose_response,
    chunks,
    header_value,
    is_transient_transport_error,
    is_transport_error,
    response_transport_errors,
)
from affordance.adapters.redaction import bodies_withheld, withhold_bodies
from affordance.adapters.resent_turn import ResentTurn
from affordance.adapters.resolution import IdentityCache, SerializerFactories, ToolSets, WireForms
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
from affordance.adapters.retrying import Exchange, RetryingTransport
from affordance.adapters.retrying_sdk import RetryingSdk
from affordance.adapters.schema_dialect import (
    CONSTRAINT_PHRASES,
    JSON_TYPES,
    SCHEMA_ORDER,
    SCHEMA_REASONS,
    TYPED_KEYWORDS,
    ConvertedSchema,
    SchemaDialect,
    is_primitive,
    is_string_or_number,
    property_path,
    schema_prompt,
)
from affordance.adapters.schema_nulls import NullPlan, drop_introduced_nulls, drop_nulls_in_json
from affordance.adapters.schema_rules import DialectRules, convert_schema
from affordance.adapters.schema_walk import (
    SCHEMA_KEYWORDS,
    SchemaCost,
    SchemaPath,
    SchemaRefusedError,
    SchemaRules,
    SchemaWalk,
    copy_json,
    local_refs,
    recursive_ref,
    schema_cost,
    schema_pointer,
    schema_types,
)
from affordance.adapters.sdk_failures import HttpFailure, SdkFailures, error_detail
from affordance.adapters.sse import SseEvent, aread_events, read_events
from affordance.adapters.stainless import JsonPost, bounded_timeout
from affordance.adapters.stainless_sdk import StainlessSdk
from affordance.adapters.stream_translation import EventHandler, StreamTranslator, event_field
from affordance.adapters.strict_budget import StrictBudget, within_strict_budget
from affordance.adapters.tool_choice import wire_tool_choice
from affordance.adapters.transport import ProviderErrorMapper, StainlessTransport
from affordance.adapters.wire import (
    Prepared,
    PreparedRequest,
    RequestSettings,
    Translate,
    WireModel,
    WireTransport,
    check_model,
)
from affordance.runtime.model.attachment_rules import AttachmentSupport
from affordance.runtime.model.connection import Model
from affordance.runtime.model.deltas import (
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
from affordance.runtime.model.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.model.output import output_name, output_schema
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
    ProviderTurn,
    ToolChoice,
    Usage,
)

__all__ = [
    "CONSTRAINT_PHRASES",
    "JSON_TYPES",
    "NO_REQUEST_RETRIES",
    "NO_USAGE",
    "PAUSED",
    "RETRIED_STATUSES",
    "SCHEMA_KEYWORDS",
    "SCHEMA_ORDER",
    "SCHEMA_REASONS",
    "TOOL_CHOICE_KEYWORDS",
    "TYPED_KEYWORDS",
    "Arguments",
    "AssistantMessage",
    "AttachmentSupport",
    "ClientPair",
    "ConvertedSchema",
    "Delta",
    "DialectRules",
    "EventHandler",
    "Exchange",
    "HostedActivity",
    "HostedRequest",
    "HttpFailure",
    "IdentityCache",
    "JsonPost",
    "Message",
    "Model",
    "ModelRequest",
    "NullPlan",
    "OutputFormat",
    "OutputSerializer",
    "Prepared",
    "PreparedRequest",
    "ProviderAdapter",
    "ProviderErrorMapper",
    "ProviderItem",
    "ProviderModel",
    "ProviderTurn",
    "RefusalPiece",
    "RequestRetryPolicy",
    "RequestSettings",
    "ResentTurn",
    "RetryingSdk",
    "RetryingTransport",
    "RunForm",
    "SchemaCost",
    "SchemaDialect",
    "SchemaPath",
    "SchemaRefusedError",
    "SchemaRules",
    "SchemaWalk",
    "SdkFailures",
    "SerializerFactories",
    "SharedClient",
    "SseEvent",
    "StainlessSdk",
    "StainlessTransport",
    "StreamFailedError",
    "StreamTranslator",
    "StrictBudget",
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
    "ToolSets",
    "Transient",
    "Translate",
    "TurnEnd",
    "UnusableResponseError",
    "Usage",
    "UsageFields",
    "UserMessage",
    "WireForms",
    "WireModel",
    "WireTransport",
    "achunks",
    "aclose_response",
    "adecode_stream",
    "aread_events",
    "arguments_json",
    "arguments_text",
    "awith_retries",
    "bodies_withheld",
    "bounded_timeout",
    "check_model",
    "chunks",
    "content_parts",
    "convert_schema",
    "copy_json",
    "cut",
    "decode_stream",
    "decode_turn",
    "describe_error_body",
    "drop_introduced_nulls",
    "drop_nulls_in_json",
    "error_detail",
    "event_field",
    "expect",
    "finish_reason",
    "header_value",
    "is_primitive",
    "is_string_or_number",
    "is_transient_transport_error",
    "is_transport_error",
    "joined_transcript",
    "local_refs",
    "malformed_response",
    "merge_extra_body",
    "output_name",
    "output_schema",
    "parse_json",
    "property_path",
    "read_events",
    "recursive_ref",
    "require_api_key",
    "response_transport_errors",
    "retry_after_seconds",
    "run_entry",
    "schema_cost",
    "schema_pointer",
    "schema_prompt",
    "schema_types",
    "stainless_error",
    "status_error",
    "string_or_none",
    "token_count",
    "transient_status",
    "transport_error",
    "transport_errors",
    "turn_from_deltas",
    "url_media_type",
    "wire_tool_choice",
    "with_retries",
    "withhold_bodies",
    "within_strict_budget",
]
