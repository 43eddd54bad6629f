"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``openai`` client owns retries (429 with ``retry-after-ms``/``retry-after``, 408, 409, 5xx,
timeouts, connection errors; ``x-should-retry`` overrides), so an exception reaching here is
final and is never retried again by this plugin. The wording is the core's
(``affordance.adapters.errors``); this module only knows the SDK's exception classes.
"""

from __future__ import annotations

import openai

from affordance.adapters.errors import (
    describe_error_body,
    retried_by,
    sdk_error,
    status_error,
    transport_error,
)
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error"]

PROVIDER = "openai"


def provider_error(
    error: openai.OpenAIError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    retried = retried_by(PROVIDER, max_retries)
    if isinstance(error, openai.APIStatusError):
        return status_error(
            PROVIDER,
            prompt_name=prompt_name,
            status=error.status_code,
            detail=describe_error_body(error.body, error.message),
            request_id=getattr(error, "request_id", None),
            response=error.response,
            retried=retried,
        )
    if isinstance(error, openai.APIConnectionError):  # APITimeoutError included
        return transport_error(
            PROVIDER,
            prompt_name=prompt_name,
            timed_out=isinstance(error, openai.APITimeoutError),
            cause=error.__cause__,
            retried=retried,
        )
    if isinstance(error, openai.APIError):  # e.g. an error event in a stream
        return PromptEvaluationError(
            f"openai failed: {error.message}", prompt_name=prompt_name, provider=PROVIDER
        )
    return sdk_error(PROVIDER, prompt_name=prompt_name, error=error)
