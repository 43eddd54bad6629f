"""Images and documents on the Messages API: what it carries, and the content blocks that carry
them (``specs/adapters/anthropic.md``, "Attachments").

An image is an ``image`` block, a PDF or a plain text a ``document`` block, each with its bytes
(``base64``; a plain text as its ``text``) or a ``url`` the API fetches. A user message sends
them before its text block (Anthropic's guidance: images and documents first); a tool result's
go after its text, inside the ``tool_result`` block's ``content`` list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance.adapters import AttachmentSupport, content_parts
from affordance.attachments import DOCUMENT_MEDIA_TYPES, IMAGE_MEDIA_TYPES, Attachment, Image

__all__ = [
    "MESSAGES_SUPPORT",
    "attachment_block",
    "user_blocks",
    "with_attachments",
]


_TYPES = IMAGE_MEDIA_TYPES | DOCUMENT_MEDIA_TYPES
MESSAGES_SUPPORT = AttachmentSupport(
    user=_TYPES, tool_result=_TYPES, by_url=frozenset({"image", "application/pdf"})
)
"""Images (PNG, JPEG, GIF, WebP), PDFs and plain texts, in user messages and tool results;
images and PDFs by URL too (a document's URL source is fetched as a PDF)."""


def attachment_block(attachment: Attachment) -> dict[str, Any]:
    """One attachment as an ``image`` or ``document`` content block; a document's ``name``
    becomes its ``title``."""
    source: dict[str, Any]
    if attachment.url is not None:
        source = {"type": "url", "url": attachment.url}
    elif attachment.media_type == "text/plain":
        text = (attachment.data or b"").decode("utf-8", errors="replace")
        source = {"type": "text", "media_type": "text/plain", "data": text}
    else:
        source = {
            "type": "base64",
            "media_type": attachment.media_type,
            "data": attachment.base64(),
        }
    if isinstance(attachment, Image):
        return {"type": "image", "source": source}
    block: dict[str, Any] = {"type": "document", "source": source}
    if attachment.name:
        block["title"] = attachment.name
    return block


def user_blocks(text: str, attachments: Sequence[Attachment]) -> list[Any]:
    """A user message's blocks: the attachments', then its text (left out when empty)."""
    return content_parts(text, attachments, attachment_block, text_last=True)


def with_attachments(
    block: Mapping[str, Any], attachments: Sequence[Attachment]
) -> Mapping[str, Any]:
    """The ``tool_result`` block the serializer made, its ``content`` now a list: its text as
    a ``text`` block (a list of blocks kept as it is, no content or an empty text as none; one
    block of a third party's serializer as that block), then the attachments' blocks. The
    serializer's block is copied, never changed."""
    content = content_parts(block.get("content"), attachments, attachment_block)
    return {**block, "content": content}
