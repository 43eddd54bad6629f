"""What is left of a provider failure once the SDK has retried: a ``PromptEvaluationError``.

The ``anthropic`` client owns retries (408, 409, 429 honouring ``retry-after-ms`` /
``retry-after``, 5xx and 529 overloaded, timeouts, connection errors; ``x-should-retry``
overrides), so an exception reaching here is final and is never retried again by this plugin.
A stream that has begun is never retried by anyone: its failures (an ``error`` event, a cut
connection, a body ending before ``message_stop``) are final too.
"""

from __future__ import annotations

import anthropic

from affordance.adapters import stainless_error
from affordance.errors import PromptEvaluationError

__all__ = ["PROVIDER", "provider_error"]

PROVIDER = "anthropic"


def provider_error(
    error: anthropic.AnthropicError, *, prompt_name: str, max_retries: int | None
) -> PromptEvaluationError:
    """The evaluation error for an SDK exception, with status and request id when known."""
    return stainless_error(
        anthropic,
        error,
        provider=PROVIDER,
        prompt_name=prompt_name,
        max_retries=max_retries,
        error_kinds=("type",),
    )
