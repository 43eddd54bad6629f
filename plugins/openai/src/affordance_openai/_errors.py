"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``openai`` client owns retries (429 with ``retry-after-ms``/``retry-after``, 408, 409, 5xx,
timeouts, connection errors; ``x-should-retry`` overrides), so an exception reaching here is
final and is never retried again by this plugin.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import openai

from affordance.adapters.decoding import cut
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error", "transport_errors"]

PROVIDER = "openai"


def provider_error(
    error: openai.OpenAIError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    retried = f" (after the openai client's retries, max_retries={max_retries})"
    if max_retries is None:
        retried = ""
    if isinstance(error, openai.APIStatusError):
        return PromptEvaluationError(
            f"openai answered HTTP {error.status_code}: {_describe(error.body, error.message)}"
            + retried,
            prompt_name=prompt_name,
            provider=PROVIDER,
            status=error.status_code,
            request_id=getattr(error, "request_id", None),
            raw_text=cut(_body_text(error.response)),
        )
    if isinstance(error, openai.APITimeoutError):
        message = "the openai request timed out" + retried
    elif isinstance(error, openai.APIConnectionError):
        cause = error.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        message = f"could not complete the openai request{detail}" + retried
    elif isinstance(error, openai.APIError):
        message = f"openai failed: {error.message}"
    else:  # configuration, e.g. no API key when the adapter builds its own client
        message = f"the openai client could not be used: {error}"
    return PromptEvaluationError(message, prompt_name=prompt_name, provider=PROVIDER)


@functools.cache
def _transport_errors_of(module_name: str) -> tuple[type[BaseException], ...]:
    module = importlib.import_module(module_name)
    found = getattr(module, "TransportError", None)
    return (found,) if isinstance(found, type) and issubclass(found, BaseException) else ()


def transport_errors(http_response: object) -> tuple[type[BaseException], ...]:
    """The transport errors of the HTTP library under the SDK (``httpx2`` for openai 3.x,
    ``httpx`` before): a stream read past the SDK's retries raises them unwrapped."""
    return _transport_errors_of(type(http_response).__module__.split(".")[0])


def _describe(body: object, fallback: str) -> str:
    error: Any = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("code") or error.get("type")
        return f"{kind}: {error['message']}" if kind else str(error["message"])
    return fallback


def _body_text(response: Any) -> str:
    text = getattr(response, "text", "")  # httpx decodes with errors="replace"
    return text if isinstance(text, str) else ""
