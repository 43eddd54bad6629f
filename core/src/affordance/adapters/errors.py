"""Provider failures as ``PromptEvaluationError``: one wording for every provider plugin.

A plugin catches its SDK's exceptions (it alone knows their classes) and builds the error with
these: an HTTP status the SDK gave up on (:func:`status_error`), a request that timed out or
could not complete (:func:`transport_error`), or something else the SDK raised
(:func:`sdk_error`). ``retried`` says who already retried (``" (after the openai client's
retries, max_retries=2)"``), so nobody reading the error retries blindly.
"""

from __future__ import annotations

import sys
from typing import Any

from affordance.adapters.decoding import cut
from affordance.errors import PromptEvaluationError

__all__ = [
    "describe_error_body",
    "response_text",
    "retried_by",
    "sdk_error",
    "status_error",
    "transport_error",
    "transport_errors",
]


def retried_by(provider: str, max_retries: int | None) -> str:
    """The suffix saying the SDK client already retried (empty when unknown)."""
    if max_retries is None:
        return ""
    return f" (after the {provider} client's retries, max_retries={max_retries})"


def describe_error_body(
    body: object, fallback: str, kinds: tuple[str, ...] = ("code", "type")
) -> str:
    """``kind: message`` from an error body (``{"error": {"type", "message"}}`` or the error
    object itself), else ``fallback``."""
    error: Any = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = next((error[k] for k in kinds if error.get(k)), None)
        return f"{kind}: {error['message']}" if kind else str(error["message"])
    return fallback


def response_text(response: object) -> str:
    """An HTTP response's text for ``raw_text`` ("" when it cannot be read, e.g. a streamed
    error body that was never read)."""
    try:
        text = getattr(response, "text", "")  # httpx decodes with errors="replace"
    except Exception:  # noqa: BLE001 - unread streamed body, closed response...
        return ""
    return text if isinstance(text, str) else ""


def status_error(
    provider: str,
    *,
    prompt_name: str | None,
    status: int,
    detail: str,
    request_id: str | None,
    response: object = None,
    retried: str = "",
) -> PromptEvaluationError:
    """The provider answered an HTTP error the SDK did not (or no longer) retry."""
    return PromptEvaluationError(
        f"{provider} answered HTTP {status}: {detail}{retried}",
        prompt_name=prompt_name,
        provider=provider,
        status=status,
        request_id=request_id,
        raw_text=cut(response_text(response)) if response is not None else None,
    )


def transport_error(
    provider: str,
    *,
    prompt_name: str | None,
    timed_out: bool,
    cause: BaseException | None = None,
    retried: str = "",
) -> PromptEvaluationError:
    """The request timed out, or the connection failed before an answer came."""
    if timed_out:
        message = f"the {provider} request timed out{retried}"
    else:
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        message = f"could not complete the {provider} request{detail}{retried}"
    return PromptEvaluationError(message, prompt_name=prompt_name, provider=provider)


def sdk_error(
    provider: str, *, prompt_name: str | None, error: BaseException
) -> PromptEvaluationError:
    """Anything else the SDK raised (configuration, e.g. no API key)."""
    return PromptEvaluationError(
        f"the {provider} client could not be used: {error}",
        prompt_name=prompt_name,
        provider=provider,
    )


def transport_errors(http_response: object) -> tuple[type[BaseException], ...]:
    """The transport errors of the HTTP package that made ``http_response`` (``httpx2``, or
    ``httpx`` for older SDKs): reading a streamed body raises them unwrapped by the SDK."""
    package = sys.modules.get(type(http_response).__module__.split(".")[0])
    found = getattr(package, "RequestError", None)
    if isinstance(found, type) and issubclass(found, BaseException):
        return (found,)
    return ()
