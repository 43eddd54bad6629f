"""Google failures: which are transient (the adapter's retry budget takes them), and what is
left of one once the budget is spent — a ``PromptEvaluationError``.

``google-genai`` retries nothing unless its client has ``retry_options``, ignores
``Retry-After`` even then, and lets timeouts and connection errors through as the raw
exceptions of its HTTP library (``httpx2`` for 3.x, ``httpx`` before, ``aiohttp`` when it is
the async transport). So the adapter owns retries (with :mod:`affordance.adapters.retry`):
an ``APIError`` with status 408, 429, 500, 502, 503 or 504, a timeout, a refused or reset
connection. A 429's wait comes from its ``Retry-After`` header, or else from the
``google.rpc.RetryInfo`` detail the API puts in the body (``"retryDelay": "26s"``).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
from typing import Any

from google.genai import errors

from affordance.adapters import Transient, cut, retry_after_seconds
from affordance.errors import PromptEvaluationError

__all__ = [
    "PROVIDER",
    "TRANSIENT_STATUSES",
    "classify",
    "provider_error",
    "request_id_of",
    "transport_errors",
]

PROVIDER = "google"

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
"""Statuses worth another attempt: the ones ``google-genai``'s own retry options use."""

_REQUEST_ID_HEADERS = ("x-request-id", "x-goog-request-id")


@functools.cache
def _transport_module_errors(module_name: str) -> tuple[type[BaseException], ...]:
    """``(TransportError, TimeoutException, NetworkError, RemoteProtocolError)`` of an httpx-like
    module: the base class and the subclasses worth retrying."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:  # pragma: no cover - the SDK's transport is always importable
        return ()
    names = ("TransportError", "TimeoutException", "NetworkError", "RemoteProtocolError")
    found = tuple(getattr(module, name, None) for name in names)
    return tuple(kind for kind in found if isinstance(kind, type))


def transport_errors(response: object) -> tuple[type[BaseException], ...]:
    """The exceptions reading ``response`` (the SDK's raw HTTP response) raises when the
    transport fails: ``TransportError`` of ``httpx2`` or ``httpx``, ``RequestException`` of
    ``requests`` (Vertex AI with Google auth), ``ClientError`` of ``aiohttp`` (the SDK's async
    transport when installed) and its timeouts."""
    module = type(response).__module__.split(".")[0]
    if module in ("httpx", "httpx2"):
        return _transport_module_errors(module)[:1]
    if module == "requests":
        requests = importlib.import_module("requests")
        return (requests.RequestException,)
    if module == "aiohttp":
        aiohttp = importlib.import_module("aiohttp")
        return (aiohttp.ClientError, asyncio.TimeoutError, TimeoutError)
    return ()


def _is_transient_transport(error: BaseException) -> bool:
    module = type(error).__module__.split(".")[0]
    if module in ("httpx", "httpx2"):
        retried = _transport_module_errors(module)[1:]
        return isinstance(error, retried)
    if module == "requests":
        exceptions = importlib.import_module("requests.exceptions")
        return isinstance(
            error, (exceptions.ConnectionError, exceptions.Timeout, exceptions.ChunkedEncodingError)
        )
    if module == "aiohttp":
        return type(error).__name__ in (
            "ClientConnectorError",
            "ClientOSError",
            "ServerDisconnectedError",
            "ServerTimeoutError",
            "ConnectionTimeoutError",
            "SocketTimeoutError",
        )
    return isinstance(error, (TimeoutError, asyncio.TimeoutError, ConnectionError))


def _is_transport(error: BaseException) -> bool:
    module = type(error).__module__.split(".")[0]
    if module in ("httpx", "httpx2", "aiohttp", "requests"):
        return True
    return isinstance(error, (OSError, TimeoutError))


def classify(error: Exception) -> Transient | None:
    """Whether ``error`` is worth another attempt, and the wait the server asked for."""
    if isinstance(error, errors.APIError):
        if error.code not in TRANSIENT_STATUSES:
            return None
        return Transient(f"HTTP {error.code} {error.status}", _retry_after(error))
    if _is_transient_transport(error):
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


def request_id_of(headers: Any) -> str | None:
    """The request id a response's headers carry, if any (Google rarely sends one)."""
    if headers is None:
        return None
    for name in _REQUEST_ID_HEADERS:
        value = headers.get(name)
        if isinstance(value, str) and value:
            return value
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
            provider=PROVIDER,
            status=error.code,
            request_id=request_id_of(headers),
            raw_text=cut(_body_text(error)),
            transient=classify(error) is not None,
        )
    if _is_transport(error):
        message = f"the google request failed{tried}: {type(error).__name__}: {error}"
        return PromptEvaluationError(
            message,
            prompt_name=prompt_name,
            provider=PROVIDER,
            transient=classify(error) is not None,
        )
    # configuration: no API key, a bad base URL, an SDK refusing the request
    message = f"the google client could not send the request: {type(error).__name__}: {error}"
    return PromptEvaluationError(message, prompt_name=prompt_name, provider=PROVIDER)


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
