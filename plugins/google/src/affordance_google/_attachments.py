"""Images and documents as Gemini parts: what the model carries, and the part each becomes.

An attachment with bytes is ``{"inlineData": {"mimeType", "data"}}`` (standard base64), one
given by URL ``{"fileData": {"mimeType", "fileUri"}}``: the same shape in a user ``Content`` and
in a ``functionResponse``'s ``parts`` (the SDK's ``Blob`` / ``FileData`` and
``FunctionResponseBlob`` / ``FunctionResponseFileData``). No ``displayName`` is sent: the
Developer API reads one only beside server-side tools (google-genai 1.39 refuses it there).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from affordance import Image
from affordance.adapters import AttachmentSupport
from affordance.attachments import Attachment

__all__ = ["GEMINI_ATTACHMENTS", "attachment_part", "url_media_type"]

_CARRIED = frozenset({"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"})
"""What Gemini reads, in a prompt and (Gemini 3) in a function response: PNG, JPEG and WebP
images, PDF and plain-text documents. GIF is not among Gemini's image types."""

GEMINI_ATTACHMENTS = AttachmentSupport(
    user=_CARRIED, tool_result=_CARRIED, by_url=frozenset({"image", "document"})
)
"""The ``attachment_support`` of ``GoogleModel``."""

_SUFFIXES = {
    "image": {
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".webp": "image/webp",
    },
    "document": {".pdf": "application/pdf", ".txt": "text/plain"},
}


def url_media_type(attachment: Attachment) -> str | None:
    """The media type of an attachment given by URL: its own, else the one its path's suffix
    names among its kind's (``.png``, ``.jpg``, ``.webp``; ``.pdf``, ``.txt``), else ``None``."""
    if attachment.media_type is not None or attachment.url is None:
        return attachment.media_type
    kind = "image" if isinstance(attachment, Image) else "document"
    suffix = PurePosixPath(urlsplit(attachment.url).path).suffix.lower()
    return _SUFFIXES[kind].get(suffix)


def attachment_part(attachment: Attachment) -> dict[str, Any]:
    """The part ``attachment`` goes out as. A URL whose type is neither given nor told by its
    suffix goes without ``mimeType``: the API reads it from the file (a Files API URI has no
    suffix and needs none; Vertex AI wants one, so pass ``media_type=`` there)."""
    if attachment.url is None:
        return {"inlineData": {"mimeType": attachment.media_type, "data": attachment.base64()}}
    media_type = url_media_type(attachment)
    typed = {} if media_type is None else {"mimeType": media_type}
    return {"fileData": {**typed, "fileUri": attachment.url}}
