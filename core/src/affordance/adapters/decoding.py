"""Reading a provider's answer: JSON body → normalized turn, and the errors on the way.

The path every adapter shares: parse the body once (``json.loads``), let the provider's parser
build a :class:`ProviderTurn`, and turn anything unusable — not JSON, nested too deep, the wrong
shape — into a :class:`PromptEvaluationError` carrying provider, status, request id and the raw
text (cut to a readable size). Parsers raise :class:`UnusableResponseError` for shape problems.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from affordance.errors import PromptEvaluationError
from affordance.runtime.turn import ProviderTurn

__all__ = [
    "MAX_RAW_TEXT",
    "UnusableResponseError",
    "cut",
    "decode_turn",
    "malformed_response",
    "token_count",
]

MAX_RAW_TEXT = 2000
"""Characters of a bad body kept on the error (``raw_text``)."""


class UnusableResponseError(Exception):
    """A 2xx body that is not what the API promises; the adapter adds status and request id."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


def cut(text: str, limit: int = MAX_RAW_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def malformed_response(
    detail: str,
    *,
    provider: str,
    prompt_name: str,
    status: int | None,
    request_id: str | None,
    raw_text: str,
) -> PromptEvaluationError:
    """A 2xx answer that cannot be read; never retried (the same request would get it again)."""
    return PromptEvaluationError(
        f"{provider} sent an unusable response body: {detail}",
        prompt_name=prompt_name,
        phase="response",
        provider=provider,
        status=status,
        request_id=request_id,
        raw_text=cut(raw_text),
    )


def decode_turn(
    content: bytes,
    parse: Callable[[Any], ProviderTurn],
    *,
    provider: str,
    prompt_name: str,
    status: int | None = None,
    request_id: str | None = None,
) -> ProviderTurn:
    """``parse(json.loads(content))``, with every way that can fail as one readable error."""
    try:
        try:
            data = json.loads(content)
        except RecursionError:
            raise UnusableResponseError("the JSON is nested too deeply to read") from None
        except ValueError as error:  # json.JSONDecodeError and UnicodeDecodeError
            raise UnusableResponseError(f"not JSON ({error})") from error
        try:
            return parse(data)
        except RecursionError:
            raise UnusableResponseError("the body is nested too deeply to read") from None
    except UnusableResponseError as error:
        raise malformed_response(
            error.detail,
            provider=provider,
            prompt_name=prompt_name,
            status=status,
            request_id=request_id,
            raw_text=content.decode("utf-8", errors="replace"),
        ) from error


def token_count(value: Any, key: str | None = None) -> int:
    """An integer usage field (``value[key]`` when ``key`` is given); 0 when absent or not an
    integer (a provider that sends ``null`` or a string must not break the run)."""
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
