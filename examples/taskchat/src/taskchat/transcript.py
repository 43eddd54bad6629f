"""The provider-neutral transcript (affordance's messages) as JSON, for the database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from affordance.adapters import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["message_from_json", "message_to_json"]


def message_to_json(message: Message) -> dict[str, Any]:
    if isinstance(message, UserMessage):
        return {"role": "user", "text": message.text}
    if isinstance(message, AssistantMessage):
        return {
            "role": "assistant",
            "text": message.text,
            "tool_calls": [
                {
                    "id": call.id,
                    "name": call.name,
                    "arguments": (
                        call.arguments if isinstance(call.arguments, str) else dict(call.arguments)
                    ),
                }
                for call in message.tool_calls
            ],
            "provider_items": [dict(item) for item in message.provider_items],
        }
    return {
        "role": "tool",
        "call_id": message.call_id,
        "name": message.name,
        "content": message.content,
        "is_error": message.is_error,
    }


def message_from_json(data: Mapping[str, Any]) -> Message:
    role = data.get("role")
    if role == "user":
        return UserMessage(str(data["text"]))
    if role == "assistant":
        return AssistantMessage(
            text=data.get("text"),
            tool_calls=tuple(
                ToolCall(str(c["id"]), str(c["name"]), c["arguments"])
                for c in data.get("tool_calls", ())
            ),
            provider_items=tuple(data.get("provider_items", ())),
        )
    if role == "tool":
        return ToolResultMessage(
            call_id=str(data["call_id"]),
            name=str(data["name"]),
            content=str(data["content"]),
            is_error=bool(data.get("is_error", False)),
        )
    raise ValueError(f"unknown message role {role!r} in a stored transcript")
