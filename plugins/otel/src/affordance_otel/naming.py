"""How affordance's names become GenAI semantic-convention values: the provider, the operation,
the span names and ``error.type``.

Every attribute key the plugin writes is a constant of ``opentelemetry-semantic-conventions``
(re-exported from here under short names), except the ``affordance.*`` ones this module defines
for what the conventions have no name for.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes import error_attributes
from opentelemetry.semconv.attributes import server_attributes as server_attributes_module

__all__ = [
    "AFFORDANCE_APPROVED",
    "AFFORDANCE_ATTEMPT",
    "AFFORDANCE_ATTEMPTS",
    "AFFORDANCE_CACHED",
    "AFFORDANCE_FAILED_MODEL",
    "AFFORDANCE_FAILED_PROVIDER",
    "AFFORDANCE_HTTP_STATUS",
    "AFFORDANCE_MESSAGE",
    "AFFORDANCE_PENDING_CONFIRMATIONS",
    "AFFORDANCE_PROBLEMS",
    "AFFORDANCE_REASON",
    "AFFORDANCE_RESUMED",
    "AFFORDANCE_RETRYING",
    "AFFORDANCE_RUN_ID",
    "AFFORDANCE_SECTIONS",
    "AFFORDANCE_TURN",
    "ERROR_TYPE",
    "EVENT_CACHE_HIT",
    "EVENT_CONFIRMATION_REQUESTED",
    "EVENT_CONFIRMATION_RESOLVED",
    "EVENT_MODEL_SWITCHED",
    "EVENT_OUTPUT_RETRY",
    "EVENT_SECTIONS_OPENED",
    "EVENT_TOOL_DENIED",
    "EVENT_TOOL_RETRY",
    "EVENT_TOOL_TIMEOUT",
    "agent_span_name",
    "error_type",
    "gen_ai",
    "operation_of",
    "provider_of",
    "request_span_name",
    "server_attributes",
    "tool_span_name",
]

ERROR_TYPE = error_attributes.ERROR_TYPE

# -- affordance's own attributes and span events (no GenAI convention names these) ------------
AFFORDANCE_RUN_ID = "affordance.run.id"
AFFORDANCE_RESUMED = "affordance.run.resumed"
AFFORDANCE_PENDING_CONFIRMATIONS = "affordance.run.pending_confirmations"
AFFORDANCE_TURN = "affordance.turn"
AFFORDANCE_ATTEMPT = "affordance.tool.attempt"
AFFORDANCE_ATTEMPTS = "affordance.tool.attempts"
AFFORDANCE_RETRYING = "affordance.tool.retrying"
AFFORDANCE_CACHED = "affordance.tool.cached"
AFFORDANCE_REASON = "affordance.reason"
AFFORDANCE_APPROVED = "affordance.confirmation.approved"
AFFORDANCE_MESSAGE = "affordance.confirmation.message"
AFFORDANCE_PROBLEMS = "affordance.output.problems"
AFFORDANCE_SECTIONS = "affordance.sections"
AFFORDANCE_FAILED_PROVIDER = "affordance.fallback.failed_provider"
AFFORDANCE_FAILED_MODEL = "affordance.fallback.failed_model"
AFFORDANCE_HTTP_STATUS = "affordance.fallback.status"

EVENT_TOOL_RETRY = "affordance.tool.retry"
EVENT_TOOL_TIMEOUT = "affordance.tool.timeout"
EVENT_CACHE_HIT = "affordance.tool.cache_hit"
EVENT_TOOL_DENIED = "affordance.tool.denied"
EVENT_CONFIRMATION_REQUESTED = "affordance.confirmation.requested"
EVENT_CONFIRMATION_RESOLVED = "affordance.confirmation.resolved"
EVENT_OUTPUT_RETRY = "affordance.output.retry"
EVENT_SECTIONS_OPENED = "affordance.sections.opened"
EVENT_MODEL_SWITCHED = "affordance.model.switched"

_PROVIDERS = {
    "openai": gen_ai.GenAiProviderNameValues.OPENAI.value,
    "openai-chat": gen_ai.GenAiProviderNameValues.OPENAI.value,
    "anthropic": gen_ai.GenAiProviderNameValues.ANTHROPIC.value,
    "google": gen_ai.GenAiProviderNameValues.GCP_GEN_AI.value,
}
_GENERATE_CONTENT = frozenset({gen_ai.GenAiProviderNameValues.GCP_GEN_AI.value})


def provider_of(name: str) -> str:
    """``gen_ai.provider.name`` for an affordance provider name: the convention's value for the
    providers it knows (``google`` is ``gcp.gen_ai``), the name itself for any other."""
    return _PROVIDERS.get(name, name)


def operation_of(provider: str) -> str:
    """``gen_ai.operation.name`` of one model request to ``provider`` (a convention value):
    ``generate_content`` for Google's Gemini API, ``chat`` for the others."""
    if provider in _GENERATE_CONTENT:
        return gen_ai.GenAiOperationNameValues.GENERATE_CONTENT.value
    return gen_ai.GenAiOperationNameValues.CHAT.value


def agent_span_name(prompt_name: str) -> str:
    return f"{gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value} {prompt_name}"


def request_span_name(operation: str, model: str | None) -> str:
    return f"{operation} {model}" if model else operation


_DEFAULT_PORTS = {"https": 443, "http": 80}


@lru_cache(maxsize=64)
def server_attributes(url: str) -> tuple[tuple[str, str | int], ...]:
    """``server.address`` and ``server.port`` of a connection's base URL (the port its scheme
    implies when it names none), as items to add; none for a URL with no host. Kept per URL:
    a process talks to a few servers, and a request should not parse one each time."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is no number, or out of range
        return ()
    if not host:
        return ()
    if port is None:
        port = _DEFAULT_PORTS.get(parts.scheme)
    if port is None:
        return ((server_attributes_module.SERVER_ADDRESS, host),)
    return (
        (server_attributes_module.SERVER_ADDRESS, host),
        (server_attributes_module.SERVER_PORT, port),
    )


def tool_span_name(tool_name: str) -> str:
    return f"{gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value} {tool_name}"


def error_type(error: BaseException) -> str:
    """``error.type`` of an exception: its fully qualified class name (low cardinality, and
    never the message, which may quote content)."""
    kind = type(error)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
