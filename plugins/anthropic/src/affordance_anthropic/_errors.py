"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``anthropic`` client owns retries (408, 409, 429 honouring ``retry-after-ms`` /
``retry-after``, 5xx and 529 overloaded, timeouts, connection errors; ``x-should-retry``
overrides), so an exception reaching here is final and is never retried again by this plugin.
A stream that has begun is never retried by anyone: its failures (an ``error`` event, a cut
connection, a body ending before ``message_stop``) are final too.
"""

from __future__ import annotations

import anthropic

from affordance.adapters.errors import (
    describe_error_body,
    retried_by,
    sdk_error,
    status_error,
    transport_error,
)
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error"]

PROVIDER = "anthropic"


def provider_error(
    error: anthropic.AnthropicError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    retried = retried_by(PROVIDER, max_retries)
    if isinstance(error, anthropic.APIStatusError):
        return status_error(
            PROVIDER,
            prompt_name=prompt_name,
            status=error.status_code,
            detail=describe_error_body(error.body, error.message, kinds=("type",)),
            request_id=getattr(error, "request_id", None),
            response=error.response,
            retried=retried,
        )
    if isinstance(error, anthropic.APIConnectionError):  # APITimeoutError included
        return transport_error(
            PROVIDER,
            prompt_name=prompt_name,
            timed_out=isinstance(error, anthropic.APITimeoutError),
            cause=error.__cause__,
            retried=retried,
        )
    if isinstance(error, anthropic.APIError):
        return PromptEvaluationError(
            f"anthropic failed: {error.message}", prompt_name=prompt_name, provider=PROVIDER
        )
    return sdk_error(PROVIDER, prompt_name=prompt_name, error=error)
