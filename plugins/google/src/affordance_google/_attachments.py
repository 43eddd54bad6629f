"""Images and documents as Gemini parts: what the model carries, and the part each becomes.

An attachment with bytes is ``{"inlineData": {"mimeType", "data"}}`` (standard base64), one
given by URL ``{"fileData": {"mimeType", "fileUri"}}``: the same shape in a user ``Content`` and
in a ``functionResponse``'s ``parts`` (the SDK's ``Blob`` / ``FileData`` and
``FunctionResponseBlob`` / ``FunctionResponseFileData``). No ``displayName`` is sent: the
Developer API reads one only beside server-side tools (google-genai 1.39 refuses it there).
"""

from __future__ import annotations

from typing import Any

from affordance.adapters import AttachmentSupport, url_media_type
from affordance.attachments import Attachment

__all__ = ["GEMINI_ATTACHMENTS", "attachment_part"]

_CARRIED = frozenset({"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"})
"""What Gemini reads, in a prompt and (Gemini 3) in a function response: PNG, JPEG and WebP
images, PDF and plain-text documents. GIF is not among Gemini's image types."""

GEMINI_ATTACHMENTS = AttachmentSupport(
    user=_CARRIED, tool_result=_CARRIED, by_url=frozenset({"image", "document"})
)
"""The ``attachment_support`` of ``GoogleModel``."""


def attachment_part(attachment: Attachment) -> dict[str, Any]:
    """The part ``attachment`` goes out as. A URL's ``mimeType`` is its given type, else the one
    its path's suffix names among Gemini's (``.png``, ``.jpg``, ``.webp``; ``.pdf``, ``.txt``);
    told by neither, it goes without one: the API reads it from the file (a Files API URI has
    no suffix and needs none; Vertex AI wants one, so pass ``media_type=`` there)."""
    if attachment.url is None:
        return {"inlineData": {"mimeType": attachment.media_type, "data": attachment.base64()}}
    media_type = url_media_type(attachment, _CARRIED)
    typed = {} if media_type is None else {"mimeType": media_type}
    return {"fileData": {**typed, "fileUri": attachment.url}}
