"""Reading a Messages answer: a whole ``message`` body into a ``ProviderTurn``.

The answer's content blocks are kept verbatim, in order, as the turn's ``provider_items`` (the
next request resends them unchanged) and, when hosted tools were declared, as its
``hosted_items`` too: a server tool's codec reads ``server_tool_use`` / ``*_tool_result`` blocks
and the cited text blocks, and needs every text block to place a citation in the answer (the
API cites whole blocks, without offsets). The streamed answer is assembled into the same turn
(:mod:`._stream` uses the functions here for what the two share).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from affordance.adapters import (
    PAUSED,
    ProviderTurn,
    ToolCall,
    UnusableResponseError,
    UsageFields,
)

__all__ = ["FINISH_REASONS", "finish_reason", "parse_message", "refusal_of", "usage_of"]

FINISH_REASONS: Mapping[str, str] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
    "pause_turn": PAUSED,
}


def parse_message(
    data: Any, hosted: bool, continued: tuple[Mapping[str, Any], ...] = ()
) -> ProviderTurn:
    if not isinstance(data, dict):
        raise UnusableResponseError(f"expected a JSON object, got {type(data).__name__}")
    if data.get("type") == "error":
        error = data.get("error")
        detail = (
            f"{error.get('type')}: {error.get('message')}" if isinstance(error, dict) else error
        )
        raise UnusableResponseError(f"the body is an error: {detail}")
    content = data.get("content")
    if not isinstance(content, list):
        raise UnusableResponseError("the message has no content list")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in content:
        if not isinstance(block, dict):
            raise UnusableResponseError("a content block is not an object")
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if not isinstance(text, str):
                raise UnusableResponseError("a text block has no text")
            texts.append(text)
        elif kind == "tool_use":
            calls.append(tool_call(block))
    items = tuple(content)
    stop_reason = data.get("stop_reason")
    return ProviderTurn(
        text="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        hosted_items=(*continued, *items) if hosted else (),
        provider_items=items,
        usage=usage_of(data.get("usage")),
        finish_reason=finish_reason(stop_reason, bool(calls)),
        refusal=refusal_of(stop_reason, data.get("stop_details")),
        response_id=data.get("id") if isinstance(data.get("id"), str) else None,
    )


def tool_call(block: Mapping[str, Any]) -> ToolCall:
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise UnusableResponseError("a tool_use block lacks its id or name")
    if isinstance(arguments, dict):
        return ToolCall(call_id, name, arguments)
    # Not an object: the executor reports it to the model as invalid arguments.
    return ToolCall(call_id, name, json.dumps(arguments))


def finish_reason(stop_reason: Any, has_calls: bool) -> str:
    if has_calls:
        return "tool_calls"
    if stop_reason is None:
        return "stop"
    reason = FINISH_REASONS.get(str(stop_reason), str(stop_reason))
    return "stop" if reason == "tool_calls" else reason


def refusal_of(stop_reason: Any, details: Any) -> str | None:
    """The refusal's explanation from ``stop_details``, when the API gives one."""
    if stop_reason != "refusal" or not isinstance(details, dict):
        return None
    explanation = details.get("explanation")
    return explanation if isinstance(explanation, str) and explanation else None


usage_of = UsageFields(
    input=("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"),
    output=("output_tokens",),
    cached=("cache_read_input_tokens",),
    reasoning=("output_tokens_details.thinking_tokens",),
).read
"""A message's usage. Input counts every input token: uncached, written to the cache and read
from it."""
