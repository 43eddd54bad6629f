"""Images and documents on OpenAI's two APIs: what each carries, and the content parts that
carry them (``specs/adapters/openai.md``, "Attachments").

- **Responses** takes images and files (PDF, plain text), as bytes or by URL, in a user message
  and in a function call's output (a list of ``input_*`` parts instead of the text).
- **Chat Completions** takes images (bytes or URL) and PDFs (bytes only) in a user message, and
  no attachment in a ``tool`` message: the attachments of a turn's tool results ride in one user
  message after that turn's tool messages (:func:`chat_result_attachments`), whose text names
  the call each belongs to.
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

RESPONSES_SUPPORT = AttachmentSupport(
    user=IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES,
    tool_result=IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES,
    by_url=frozenset({"image", "document"}),
)
"""Responses: ``input_image`` and ``input_file`` parts, in user messages and function outputs."""

_CHAT_TYPES = IMAGE_MEDIA_TYPES | frozenset({"application/pdf"})
CHAT_SUPPORT = AttachmentSupport(
    user=_CHAT_TYPES, tool_result=_CHAT_TYPES, by_url=frozenset({"image"})
)
"""Chat: ``image_url`` parts and ``file`` parts (PDF only, its bytes only, as OpenAI's file
inputs guide says); a tool result's go in the user message after the turn's tool messages."""


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
    """``text`` (left out when empty) as an ``input_text`` part, then the attachments' parts: a
    user message's ``content`` or a function call's ``output``. A serializer's output that is
    already a list of parts is kept as it is, ahead of the attachments."""
    return content_parts(text, attachments, responses_part, "input_text")


def chat_part(attachment: Attachment) -> dict[str, Any]:
    """One attachment as a Chat content part (a document is carried by its bytes only: the loop
    refuses one given by URL before any request, as :data:`CHAT_SUPPORT` says)."""
    if isinstance(attachment, Image):
        return {"type": "image_url", "image_url": {"url": attachment.data_url()}}
    file = {"file_data": attachment.data_url(), "filename": attachment.filename}
    return {"type": "file", "file": file}


def chat_content(text: Any, attachments: Sequence[Attachment]) -> list[Any]:
    """A Chat user message's ``content``: ``text`` (left out when empty), then the parts."""
    return content_parts(text, attachments, chat_part)


def chat_result_attachments(results: Sequence[ToolResultMessage]) -> list[dict[str, Any]]:
    """The user message carrying the attachments of one turn's tool results, each introduced
    by a text part naming its call; none when none has any."""
    parts: list[Any] = []
    for result in results:
        if result.attachments:
            heading = f"Attachments of the result of call {result.call_id} ({result.name}):"
            parts.extend(chat_content(heading, result.attachments))
    return [{"role": "user", "content": parts}] if parts else []
