"""Images and documents as Gemini parts: what the model carries, and the part each becomes
(``specs/adapters/google.md``, "Attachments")."""

from __future__ import annotations

from typing import Any

from affordance.adapters import AttachmentSupport, url_media_type
from affordance.attachments import Attachment

__all__ = ["GEMINI_ATTACHMENTS", "attachment_part"]

_CARRIED = frozenset({"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"})
"""What Gemini reads, in a prompt and (Gemini 3) in a function response; not GIF."""

GEMINI_ATTACHMENTS = AttachmentSupport(
    user=_CARRIED, tool_result=_CARRIED, by_url=frozenset({"image", "document"})
)


def attachment_part(attachment: Attachment) -> dict[str, Any]:
    """The part ``attachment`` goes out as. A URL's ``mimeType`` is its given type, else its
    suffix's; told by neither, it goes without one and the API reads it from the file."""
    if attachment.url is None:
        return {"inlineData": {"mimeType": attachment.media_type, "data": attachment.base64()}}
    media_type = url_media_type(attachment, _CARRIED)
    typed = {} if media_type is None else {"mimeType": media_type}
    return {"fileData": {**typed, "fileUri": attachment.url}}
