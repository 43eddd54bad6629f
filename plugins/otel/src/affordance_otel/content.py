"""Content in the GenAI conventions' JSON shapes, written only with ``capture_content=True``.

``gen_ai.input.messages`` and ``gen_ai.output.messages`` are JSON arrays of
``{"role", "parts": [...]}`` messages whose parts are ``text``, ``tool_call`` and
``tool_call_response``; ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result`` are JSON
text. Nothing here is called unless content capture is on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from affordance.runtime import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.serde import dump

__all__ = ["arguments_json", "input_messages_json", "output_messages_json", "tool_result_json"]


def arguments_json(params: object) -> str:
    """A call's validated arguments as JSON text (their ``repr`` when they have no JSON form)."""
    try:
        return _json(dump(params))
    except (TypeError, ValueError, RecursionError):
        return _json(repr(params))


def tool_result_json(rendered_output: str) -> str:
    """A call's rendered result as JSON: as it is when it is JSON already, else as a string."""
    try:
        json.loads(rendered_output)
    except ValueError:
        return _json(rendered_output)
    return rendered_output


def input_messages_json(messages: Sequence[Message]) -> str:
    return _json([_message(message) for message in messages])


def output_messages_json(message: AssistantMessage, finish_reason: str) -> str:
    shown = _message(message)
    shown["finish_reason"] = finish_reason
    return _json([shown])


def _message(message: Message) -> dict[str, Any]:
    if isinstance(message, UserMessage):
        return {"role": "user", "parts": [_text(message.text)]}
    if isinstance(message, ToolResultMessage):
        part = {"type": "tool_call_response", "id": message.call_id, "response": message.content}
        return {"role": "tool", "parts": [part]}
    parts: list[dict[str, Any]] = [_text(message.text)] if message.text else []
    parts.extend(
        {"type": "tool_call", "id": call.id, "name": call.name, "arguments": _args(call)}
        for call in message.tool_calls
    )
    return {"role": "assistant", "parts": parts}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "content": text}


def _args(call: ToolCall) -> object:
    arguments = call.arguments
    if isinstance(arguments, Mapping):
        return dict(arguments)
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments  # not JSON: shown as the model sent it


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)
