"""Images and documents on OpenAI's two APIs: what each carries, and the content parts that
carry them (``specs/adapters/openai.md``, "Attachments").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from affordance.adapters import AttachmentSupport, ToolResultMessage, content_parts
from affordance.attachments import DOCUMENT_MEDIA_TYPES, IMAGE_MEDIA_TYPES, Attachment, Image

__all__ = [
    "CHAT_SUPPORT",
    "RESPONSES_SUPPORT",
    "chat_content",
    "chat_result_attachments",
    "responses_content",
]

_RESPONSES_TYPES = IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES
RESPONSES_SUPPORT = AttachmentSupport(
    user=_RESPONSES_TYPES, tool_result=_RESPONSES_TYPES, by_url=frozenset({"image", "document"})
)

_CHAT_TYPES = IMAGE_MEDIA_TYPES | frozenset({"application/pdf"})
CHAT_SUPPORT = AttachmentSupport(
    user=_CHAT_TYPES, tool_result=_CHAT_TYPES, by_url=frozenset({"image"})
)
"""Chat: PDF documents only, by their bytes only, as OpenAI's file inputs guide says."""


def responses_part(attachment: Attachment) -> dict[str, Any]:
    """One attachment as a Responses input content part."""
    if isinstance(attachment, Image):
        return {"type": "input_image", "image_url": attachment.data_url(), "detail": "auto"}
    if attachment.url is not None:
        return {"type": "input_file", "file_url": attachment.url}
    return {
        "type": "input_file",
        "file_data": attachment.data_url(),
        "filename": attachment.filename,
    }


def responses_content(text: Any, attachments: Sequence[Attachment]) -> list[Any]:
    """A user message's ``content`` or a function call's ``output``: ``text``, then the parts."""
    return content_parts(text, attachments, responses_part, "input_text")


def chat_part(attachment: Attachment) -> dict[str, Any]:
    """One attachment as a Chat content part (a document by its bytes: :data:`CHAT_SUPPORT`)."""
    if isinstance(attachment, Image):
        return {"type": "image_url", "image_url": {"url": attachment.data_url()}}
    file = {"file_data": attachment.data_url(), "filename": attachment.filename}
    return {"type": "file", "file": file}


def chat_content(text: Any, attachments: Sequence[Attachment]) -> list[Any]:
    """A Chat user message's ``content``: ``text`` (left out when empty), then the parts."""
    return content_parts(text, attachments, chat_part)


def chat_result_attachments(results: Sequence[ToolResultMessage]) -> list[dict[str, Any]]:
    """The user message carrying one turn's tool results' attachments, each call's named."""
    parts: list[Any] = []
    for result in results:
        if result.attachments:
            heading = f"Attachments of the result of call {result.call_id} ({result.name}):"
            parts.extend(chat_content(heading, result.attachments))
    return [{"role": "user", "content": parts}] if parts else []
