"""Reading a transcript: the messages of the format's ``messages``, checked field by field.

Reading is strict: a message is an object with a known ``role`` and that role's fields only
(``attachments`` from version 2 on), each of its type; anything else raises
:class:`TranscriptError` naming the message and field. The messages read share nothing with
the data.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from affordance.errors import TranscriptError
from affordance.transcript._values import (
    ValuePath,
    arguments,
    array,
    boolean,
    check_fields,
    described,
    json_object,
    required,
    string,
)

if TYPE_CHECKING:
    from affordance.attachments import Attachment
    from affordance.runtime.model.messages import Message, ToolCall

__all__ = ["read_message"]

_ROLE_FIELDS: dict[str, tuple[str, ...]] = {
    "user": ("role", "text", "attachments"),
    "assistant": ("role", "text", "tool_calls", "provider_items", "provider"),
    "tool": ("role", "call_id", "name", "content", "is_error", "attachments"),
}
_CALL_FIELDS = ("id", "name", "arguments")
_ATTACHMENT_FIELDS = ("type", "media_type", "data", "url", "name")


def read_message(data: Any, path: ValuePath, version: int) -> Message:
    """The message ``data`` (at ``path`` in a document of ``version``) describes."""
    from affordance.runtime.model.messages import (
        AssistantMessage,
        ToolResultMessage,
        UserMessage,
    )

    if not isinstance(data, Mapping):
        raise TranscriptError(f"expected a message object, got {described(data)}", path=path)
    if "role" not in data:
        raise TranscriptError("missing field", path=(*path, "role"))
    role = data["role"]
    fields = _ROLE_FIELDS.get(role) if isinstance(role, str) else None
    if fields is None:
        raise TranscriptError(
            f"unknown role {described(role)}; expected 'user', 'assistant' or 'tool'",
            path=(*path, "role"),
        )
    if version < 2:  # attachments came with version 2
        fields = tuple(name for name in fields if name != "attachments")
    check_fields(
        data, fields, path, "an assistant message" if role == "assistant" else f"a {role} message"
    )
    if role == "user":
        return UserMessage(
            string(required(data, "text", path), (*path, "text")),
            _attachments(data.get("attachments", ()), (*path, "attachments")),
        )
    if role == "assistant":
        text = data.get("text")
        provider = data.get("provider")
        return AssistantMessage(
            text=None if text is None else string(text, (*path, "text")),
            tool_calls=tuple(
                _call(call, (*path, "tool_calls", i))
                for i, call in enumerate(array(data.get("tool_calls", ()), (*path, "tool_calls")))
            ),
            provider_items=tuple(
                json_object(item, (*path, "provider_items", i), 1)
                for i, item in enumerate(
                    array(data.get("provider_items", ()), (*path, "provider_items"))
                )
            ),
            provider=None if provider is None else string(provider, (*path, "provider")),
        )
    return ToolResultMessage(
        call_id=string(required(data, "call_id", path), (*path, "call_id")),
        name=string(required(data, "name", path), (*path, "name")),
        content=string(required(data, "content", path), (*path, "content")),
        is_error=boolean(data.get("is_error", False), (*path, "is_error")),
        attachments=_attachments(data.get("attachments", ()), (*path, "attachments")),
    )


def _attachments(data: Any, path: ValuePath) -> tuple[Attachment, ...]:
    from affordance.attachments import Document, Image
    from affordance.errors import AttachmentError

    read: list[Attachment] = []
    for i, item in enumerate(array(data, path)):
        where = (*path, i)
        if not isinstance(item, Mapping):
            raise TranscriptError(
                f"expected an attachment object, got {described(item)}", path=where
            )
        check_fields(item, _ATTACHMENT_FIELDS, where, "an attachment")
        kind = required(item, "type", where)
        if kind not in ("image", "document"):
            raise TranscriptError(
                f"expected 'image' or 'document', got {described(kind)}", path=(*where, "type")
            )
        if kind == "image" and "name" in item:
            raise TranscriptError("an image has no name", path=(*where, "name"))
        media_type = item.get("media_type")
        fields: dict[str, Any] = {
            "media_type": None if media_type is None else string(media_type, (*where, "media_type"))
        }
        if "data" in item:
            text = string(item["data"], (*where, "data"))
            try:
                fields["data"] = base64.b64decode(text, validate=True)
            except ValueError:
                raise TranscriptError("expected base64", path=(*where, "data")) from None
        if "url" in item:
            fields["url"] = string(item["url"], (*where, "url"))
        if "name" in item:
            fields["name"] = string(item["name"], (*where, "name"))
        try:
            read.append(Image(**fields) if kind == "image" else Document(**fields))
        except AttachmentError as error:
            raise TranscriptError(str(error), path=where) from None
    return tuple(read)


def _call(data: Any, path: ValuePath) -> ToolCall:
    from affordance.runtime.model.messages import ToolCall

    if not isinstance(data, Mapping):
        raise TranscriptError(f"expected a tool call object, got {described(data)}", path=path)
    check_fields(data, _CALL_FIELDS, path, "a tool call")
    return ToolCall(
        id=string(required(data, "id", path), (*path, "id")),
        name=string(required(data, "name", path), (*path, "name")),
        arguments=arguments(required(data, "arguments", path), (*path, "arguments")),
    )
