"""Google failures: which are transient (the adapter's retry budget takes them), and what is
left of one once the budget is spent — a ``PromptEvaluationError``.

``google-genai`` retries nothing unless its client has ``retry_options``, ignores
``Retry-After`` even then, and lets timeouts and connection errors through as the raw
exceptions of its HTTP library (``httpx2`` for 3.x, ``httpx`` before, ``aiohttp`` when it is
the async transport). So the adapter owns retries (with :mod:`affordance.adapters.retrying`,
which tells those libraries' failures apart with :mod:`affordance.adapters.raw_http`): an
``APIError`` with status 408, 429, 500, 502, 503 or 504, a timeout, a refused or reset
connection. A 429's wait comes from its ``Retry-After`` header, or else from the
``google.rpc.RetryInfo`` detail the API puts in the body (``"retryDelay": "26s"``).
"""

from __future__ import annotations

from typing import Any

from google.genai import errors

from affordance.adapters import (
    Transient,
    cut,
    header_value,
    is_transient_transport_error,
    is_transport_error,
    retry_after_seconds,
)
from affordance.errors import PromptEvaluationError

__all__ = ["REQUEST_ID_HEADERS", "TRANSIENT_STATUSES", "classify", "provider_error"]

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
"""Statuses worth another attempt: the ones ``google-genai``'s own retry options use."""

REQUEST_ID_HEADERS = ("x-request-id", "x-goog-request-id")
"""Where a response may carry a request id (Google rarely sends one)."""


def classify(error: Exception) -> Transient | None:
    """Whether ``error`` is worth another attempt, and the wait the server asked for."""
    if isinstance(error, errors.APIError):
        if error.code not in TRANSIENT_STATUSES:
            return None
        return Transient(f"HTTP {error.code} {error.status}", _retry_after(error))
    if is_transient_transport_error(error):
        return Transient(type(error).__name__)
    return None


def _retry_after(error: errors.APIError) -> float | None:
    headers = getattr(error.response, "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    if isinstance(value, str) and value.strip():
        seconds = retry_after_seconds(value)
        if seconds is not None:
            return seconds
    return _retry_info_delay(error.details)


def _retry_info_delay(details: Any) -> float | None:
    """``retryDelay`` of a ``google.rpc.RetryInfo`` detail (``"26s"``, ``"0.5s"``)."""
    error = details.get("error", details) if isinstance(details, dict) else None
    entries = error.get("details") if isinstance(error, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or not str(entry.get("@type", "")).endswith("RetryInfo"):
            continue
        delay = entry.get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            seconds = retry_after_seconds(delay[:-1])
            if seconds is not None:
                return seconds
    return None


def provider_error(error: Exception, attempts: int, *, prompt_name: str) -> PromptEvaluationError:
    """The evaluation error for what is left of a failure after ``attempts`` attempts."""
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    if isinstance(error, errors.APIError):
        response = error.response
        headers = getattr(response, "headers", None)
        return PromptEvaluationError(
            f"google answered HTTP {error.code}{tried}: {_describe(error)}",
            prompt_name=prompt_name,
            provider="google",
            status=error.code,
            request_id=header_value(headers, REQUEST_ID_HEADERS),
            raw_text=cut(_body_text(error)),
            transient=classify(error) is not None,
        )
    if is_transport_error(error):
        message = f"the google request failed{tried}: {type(error).__name__}: {error}"
        return PromptEvaluationError(
            message,
            prompt_name=prompt_name,
            provider="google",
            transient=classify(error) is not None,
        )
    # configuration: no API key, a bad base URL, an SDK refusing the request
    message = f"the google client could not send the request: {type(error).__name__}: {error}"
    return PromptEvaluationError(message, prompt_name=prompt_name, provider="google")


def _describe(error: errors.APIError) -> str:
    status, message = error.status, error.message
    if status and message:
        return f"{status}: {message}"
    return str(message or status or "no details")


def _body_text(error: errors.APIError) -> str:
    text = getattr(error.response, "text", None)
    if isinstance(text, str):
        return text
    return "" if error.details is None else str(error.details)
