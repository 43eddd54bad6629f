"""A message's images and documents beside its text, as the content parts a wire format sends.

Every provider that carries attachments does the same around its own part shapes: the text (or
what a tool-result serializer made of it) becomes a text part — none when it is empty, and a
list of parts stays as it is — and each attachment becomes the part the provider's encoder
makes, the text first or last as the provider advises (:func:`content_parts`). The parts
themselves are the plugin's wire format; this rule is written once. An attachment given by URL
may lack a media type that a provider wants named: :func:`url_media_type` reads it from the
URL's path as ``Image.from_file`` reads a file's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from affordance.attachments import _SUFFIXES, Attachment, Image

__all__ = ["content_parts", "url_media_type"]


def content_parts(
    content: Any,
    attachments: Sequence[Attachment],
    part: Callable[[Attachment], Any],
    text_type: str = "text",
    *,
    text_last: bool = False,
) -> list[Any]:
    """``content`` and the parts ``part`` makes of ``attachments``, in one new list: the content
    first (after the attachments with ``text_last``). A string is one ``{"type": text_type,
    "text": ...}`` part (none when empty); a list or a tuple holds parts already, kept in order;
    ``None`` is no part; anything else is one part as a serializer made it."""
    if isinstance(content, str):
        parts: list[Any] = [{"type": text_type, "text": content}] if content else []
    elif isinstance(content, (list, tuple)):
        parts = list(content)
    else:
        parts = [] if content is None else [content]
    if text_last:
        return [*(part(attachment) for attachment in attachments), *parts]
    parts.extend(part(attachment) for attachment in attachments)
    return parts


def url_media_type(attachment: Attachment, among: Collection[str]) -> str | None:
    """The media type of ``attachment``: its own, else — given by URL — the one its path's
    suffix names (``.png``, ``.jpg``, ``.jpeg``, ``.gif``, ``.webp``; ``.pdf``, ``.txt``) when
    that type is of the attachment's kind and ``among`` the provider's; else ``None``."""
    if attachment.media_type is not None or attachment.url is None:
        return attachment.media_type
    suffix = PurePosixPath(urlsplit(attachment.url).path).suffix.lower()
    media_type = _SUFFIXES.get(suffix)
    if media_type is None or media_type not in among:
        return None
    is_image = media_type.startswith("image/")
    return media_type if is_image == isinstance(attachment, Image) else None
