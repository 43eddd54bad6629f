"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``openai`` client owns retries (429 with ``retry-after-ms``/``retry-after``, 408, 409, 5xx,
timeouts, connection errors; ``x-should-retry`` overrides), so an exception reaching here is
final and is never retried again by this plugin. The wording is the core's
(``affordance.adapters.errors``); this module only knows the SDK's exception classes.
"""

from __future__ import annotations

import openai

from affordance.adapters import stainless_error
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error"]

PROVIDER = "openai"


def provider_error(
    error: openai.OpenAIError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    return stainless_error(
        openai,
        error,
        provider=PROVIDER,
        prompt_name=prompt_name,
        max_retries=max_retries,
    )
