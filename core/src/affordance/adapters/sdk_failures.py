"""``SdkFailures``: the failures of an SDK that does not retry, for its adapter's retry budget —
which are worth another attempt, and the error left of one once the budget is spent.

Only the plugin knows its SDK's error class: it reads an HTTP error into an
:class:`HttpFailure` (``read``). The rest is the same for every provider: a status among
``transient_statuses`` is retried after the server's ``Retry-After`` or, without one, the wait
the provider states in the body (``HttpFailure.body_wait``); a transport failure of the HTTP
library (:mod:`affordance.adapters.raw_http`) is retried after backoff when it is a timeout, a
refused or reset connection, a body cut short; anything else is final. ``classify`` and
``give_up`` are what a :class:`~affordance.adapters.retrying.RetryingTransport` takes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from affordance._frozen import frozen
from affordance.adapters.decoding import cut
from affordance.adapters.raw_http import (
    header_value,
    is_transient_transport_error,
    is_transport_error,
)
from affordance.adapters.retry import Transient, retry_after_seconds
from affordance.errors import PromptEvaluationError

__all__ = ["HttpFailure", "SdkFailures", "error_detail"]


def error_detail(kind: object, message: object, fallback: object) -> str:
    """``kind: message`` of an API error (``UNAVAILABLE: overloaded``), else whichever of the
    two it has, else ``fallback``."""
    if kind and message:
        return f"{kind}: {message}"
    return str(message or kind or fallback)


@frozen
class HttpFailure:
    """An HTTP error as an SDK reports it: the status, the API's name for the error
    (``RESOURCE_EXHAUSTED``) and its message, the response headers (a mapping with ``get``, or
    ``None``), the body's text, and the wait the body asks for, if any."""

    status: int
    kind: str | None
    message: str | None
    headers: Any = None
    raw_text: str = ""
    body_wait: float | None = None


@frozen
class SdkFailures:
    """The failures of ``provider``'s SDK, whose HTTP errors ``read`` recognizes (None for any
    other exception); ``request_id_headers`` are the response headers that may carry a request
    id."""

    provider: str
    read: Callable[[Exception], HttpFailure | None]
    transient_statuses: frozenset[int]
    request_id_headers: tuple[str, ...] = ("x-request-id",)

    def classify(self, error: Exception) -> Transient | None:
        """Whether ``error`` is worth another attempt, and the wait the server asked for."""
        failure = self.read(error)
        if failure is not None:
            if failure.status not in self.transient_statuses:
                return None
            return Transient(f"HTTP {failure.status} {failure.kind}", _wait(failure))
        if is_transient_transport_error(error):
            return Transient(type(error).__name__)
        return None

    def give_up(
        self, error: Exception, attempts: int, *, prompt_name: str
    ) -> PromptEvaluationError:
        """The evaluation error for what is left of a failure after ``attempts`` attempts."""
        tried = f" after {attempts} attempts" if attempts > 1 else ""
        provider = self.provider
        failure = self.read(error)
        if failure is not None:
            detail = error_detail(failure.kind, failure.message, "no details")
            return PromptEvaluationError(
                f"{provider} answered HTTP {failure.status}{tried}: {detail}",
                prompt_name=prompt_name,
                provider=provider,
                status=failure.status,
                request_id=header_value(failure.headers, self.request_id_headers),
                raw_text=cut(failure.raw_text),
                transient=self.classify(error) is not None,
            )
        if is_transport_error(error):
            message = f"the {provider} request failed{tried}: {type(error).__name__}: {error}"
            return PromptEvaluationError(
                message,
                prompt_name=prompt_name,
                provider=provider,
                transient=self.classify(error) is not None,
            )
        # configuration: no API key, a bad base URL, an SDK refusing the request
        message = f"the {provider} client could not send the request: {type(error).__name__}"
        return PromptEvaluationError(
            f"{message}: {error}", prompt_name=prompt_name, provider=provider
        )


def _wait(failure: HttpFailure) -> float | None:
    """The server's ``Retry-After`` (seconds or an HTTP date), else the body's wait."""
    headers = failure.headers
    value = headers.get("retry-after") if headers is not None else None
    if isinstance(value, str) and value.strip():
        seconds = retry_after_seconds(value)
        if seconds is not None:
            return seconds
    return failure.body_wait
