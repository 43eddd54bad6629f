"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``anthropic`` client owns retries (408, 409, 429 honouring ``retry-after-ms`` /
``retry-after``, 5xx and 529 overloaded, timeouts, connection errors; ``x-should-retry``
overrides), so an exception reaching here is final and is never retried again by this plugin.
A stream that has begun is never retried by anyone: its failures (an ``error`` event, a cut
connection, a body ending before ``message_stop``) are final too.
"""

from __future__ import annotations

import sys
from typing import Any

import anthropic

from affordance.adapters.decoding import cut
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error", "transport_errors"]

PROVIDER = "anthropic"


def provider_error(
    error: anthropic.AnthropicError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    retried = ""
    if max_retries is not None:
        retried = f" (after the anthropic client's retries, max_retries={max_retries})"
    if isinstance(error, anthropic.APIStatusError):
        return PromptEvaluationError(
            f"anthropic answered HTTP {error.status_code}: {_describe(error.body, error.message)}"
            + retried,
            prompt_name=prompt_name,
            provider=PROVIDER,
            status=error.status_code,
            request_id=getattr(error, "request_id", None),
            raw_text=cut(_body_text(error.response)),
        )
    if isinstance(error, anthropic.APITimeoutError):
        message = "the anthropic request timed out" + retried
    elif isinstance(error, anthropic.APIConnectionError):
        cause = error.__cause__
        detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
        message = f"could not complete the anthropic request{detail}" + retried
    elif isinstance(error, anthropic.APIError):
        message = f"anthropic failed: {error.message}"
    else:  # configuration, e.g. no API key when the adapter builds its own client
        message = f"the anthropic client could not be used: {error}"
    return PromptEvaluationError(message, prompt_name=prompt_name, provider=PROVIDER)


def transport_errors(http_response: Any) -> tuple[type[BaseException], ...]:
    """The errors reading ``http_response``'s body raises when the connection fails: the SDK
    lets them through unwrapped, from whichever HTTP package made the response (``httpx2``)."""
    package = sys.modules.get(type(http_response).__module__.split(".")[0])
    found = getattr(package, "RequestError", None)
    if isinstance(found, type) and issubclass(found, BaseException):
        return (found,)
    return ()


def _describe(body: object, fallback: str) -> str:
    error: Any = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type")
        return f"{kind}: {error['message']}" if kind else str(error["message"])
    return fallback


def _body_text(response: Any) -> str:
    try:
        text = getattr(response, "text", "")  # decoded with errors="replace"
    except Exception:  # noqa: BLE001 - a streamed error body that was never read
        return ""
    return text if isinstance(text, str) else ""
