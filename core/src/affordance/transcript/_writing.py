"""Writing a transcript: messages as the JSON-like data of the format's ``messages``.

Each message becomes a new dict sharing nothing with it: a user message's text, an assistant
message's text, tool calls, provider items (copied verbatim, key order included) and provider,
a tool result's call id, name, content and error flag, and the attachments of either (their
bytes in base64). What the format cannot hold raises :class:`TranscriptError` at its path.
"""

from __future__ import annotations

from typing import Any

from affordance.errors import TranscriptError
from affordance.transcript._values import (
    ValuePath,
    arguments,
    boolean,
    described,
    json_object,
    string,
)

__all__ = ["message_data"]


def message_data(message: object, path: ValuePath) -> dict[str, Any]:
    """``message`` (at ``path`` in the document) as the data of one of ``messages``."""
    from affordance.runtime.model.messages import (
        AssistantMessage,
        ToolResultMessage,
        UserMessage,
    )

    data: dict[str, Any]
    if isinstance(message, UserMessage):
        data = {"role": "user", "text": string(message.text, (*path, "text"))}
        if message.attachments:
            data["attachments"] = _attachments_data(message.attachments, path)
        return data
    if isinstance(message, AssistantMessage):
        data = {"role": "assistant"}
        if message.text is not None:
            data["text"] = string(message.text, (*path, "text"))
        if message.tool_calls:
            data["tool_calls"] = [
                _call_data(call, (*path, "tool_calls", i))
                for i, call in enumerate(message.tool_calls)
            ]
        if message.provider_items:
            data["provider_items"] = [
                json_object(item, (*path, "provider_items", i), 1)
                for i, item in enumerate(message.provider_items)
            ]
        if message.provider is not None:
            data["provider"] = string(message.provider, (*path, "provider"))
        return data
    if isinstance(message, ToolResultMessage):
        data = {
            "role": "tool",
            "call_id": string(message.call_id, (*path, "call_id")),
            "name": string(message.name, (*path, "name")),
            "content": string(message.content, (*path, "content")),
        }
        if boolean(message.is_error, (*path, "is_error")):
            data["is_error"] = True
        if message.attachments:
            data["attachments"] = _attachments_data(message.attachments, path)
        return data
    raise TranscriptError(
        "expected a UserMessage, AssistantMessage or ToolResultMessage, got "
        f"{type(message).__qualname__}",
        path=path,
    )


def _attachments_data(attachments: object, path: ValuePath) -> list[dict[str, Any]]:
    """A message's attachments: ``{"type": "image"|"document", "media_type", "data"}`` (the
    bytes in base64) or ``{"type", "url"}`` (with ``media_type`` when known), a document's
    ``name`` when it has one."""
    from affordance.attachments import Document, Image

    path = (*path, "attachments")
    if not isinstance(attachments, (tuple, list)):
        raise TranscriptError(f"expected a tuple, got {described(attachments)}", path=path)
    written = []
    for i, attachment in enumerate(attachments):
        if not isinstance(attachment, (Image, Document)):
            raise TranscriptError(
                f"expected an Image or a Document, got {type(attachment).__qualname__}",
                path=(*path, i),
            )
        data: dict[str, Any] = {"type": "image" if isinstance(attachment, Image) else "document"}
        if attachment.media_type is not None:
            data["media_type"] = attachment.media_type
        if attachment.data is not None:
            data["data"] = attachment.base64()
        else:
            data["url"] = attachment.url
        if isinstance(attachment, Document) and attachment.name is not None:
            data["name"] = attachment.name
        written.append(data)
    return written


def _call_data(call: object, path: ValuePath) -> dict[str, Any]:
    from affordance.runtime.model.messages import ToolCall

    if not isinstance(call, ToolCall):
        raise TranscriptError(f"expected a ToolCall, got {type(call).__qualname__}", path=path)
    return {
        "id": string(call.id, (*path, "id")),
        "name": string(call.name, (*path, "name")),
        "arguments": arguments(call.arguments, (*path, "arguments")),
    }
