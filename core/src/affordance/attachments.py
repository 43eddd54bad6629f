"""Images and documents a message carries: a user's screenshot or PDF, a tool's chart.

``Image`` and ``Document`` hold their bytes (``data=`` with ``media_type=``, which is read from
the bytes when it is left out) or point at them (``url=``). They ride on a user message —
``UserMessage("What is wrong here?", attachments=(Image.from_file("shot.png"),))`` — and on a
tool's result — ``ToolResult.ok(value, attachments=(Image(data=png),))`` — and each provider's
serializers put them in the provider's shapes (``specs/ATTACHMENTS.md`` has the table). A
provider that cannot carry an attachment where it is refuses the request before it is sent.

Only the standard library is imported here, and ``base64`` and ``pathlib`` only when used:
``import affordance`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from affordance._frozen import frozen
from affordance.errors import AttachmentError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "DEFAULT_MAX_ATTACHMENT_BYTES",
    "DOCUMENT_MEDIA_TYPES",
    "IMAGE_MEDIA_TYPES",
    "Attachment",
    "Document",
    "Image",
    "sniff_media_type",
]

IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The image types every provider affordance speaks takes."""

DOCUMENT_MEDIA_TYPES = frozenset({"application/pdf", "text/plain"})
"""The document types affordance sends: PDF everywhere, plain text where a provider takes it."""

DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024
"""The default limit on one attachment's bytes (``max_attachment_bytes=`` of a runner)."""

_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"WEBP", 8, "image/webp"),  # after "RIFF" and the length
    (b"%PDF-", 0, "application/pdf"),
)
_SUFFIXES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
    ".txt": "text/plain",
}


def sniff_media_type(data: bytes) -> str | None:
    """The media type the bytes' signature shows (PNG, JPEG, GIF, WebP, PDF), or ``None``."""
    for signature, offset, media_type in _SIGNATURES:
        if data[offset : offset + len(signature)] == signature:
            if media_type == "image/webp" and not data.startswith(b"RIFF"):
                continue
            return media_type
    return None


def _checked(
    kind: str,
    data: bytes | None,
    url: str | None,
    media_type: str | None,
    allowed: frozenset[str],
) -> str | None:
    """The media type of an attachment being built, or ``AttachmentError`` saying what is
    wrong: both or neither of ``data``/``url``, bytes of no known type, a type not allowed."""
    if (data is None) == (url is None):
        raise AttachmentError(f"an {kind} needs data=... (its bytes) or url=..., one of them")
    if data is not None:
        raw: object = data
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise AttachmentError(f"{kind} data must be bytes, got {type(raw).__name__}")
        if media_type is None:
            media_type = sniff_media_type(bytes(data[:16]))
            if media_type is None:
                raise AttachmentError(
                    f"cannot tell the {kind}'s type from its bytes; pass media_type= (one of "
                    f"{', '.join(sorted(allowed))})"
                )
    elif url is not None:
        raw_url: object = url
        if not isinstance(raw_url, str) or "://" not in raw_url:
            raise AttachmentError(f"an {kind} url must be an absolute URL, got {url!r}")
    if media_type is not None and media_type not in allowed:
        raise AttachmentError(
            f"{kind} media_type {media_type!r} is not one of {', '.join(sorted(allowed))}"
        )
    return media_type


class _Carried:
    """What an image and a document share: bytes or a URL, and the forms the wire needs."""

    __slots__ = ()

    data: bytes | None
    media_type: str | None
    url: str | None

    def _settle(self, kind: str, allowed: frozenset[str]) -> None:
        media_type = _checked(kind, self.data, self.url, self.media_type, allowed)
        object.__setattr__(self, "media_type", media_type)
        data: object = self.data
        if data is not None and not isinstance(data, bytes):  # a bytearray, a memoryview
            object.__setattr__(self, "data", bytes(self.data))  # type: ignore[arg-type]

    def __repr__(self) -> str:  # never the bytes
        kind = type(self).__name__
        if self.data is not None:
            return f"{kind}(media_type={self.media_type!r}, {len(self.data)} bytes)"
        return f"{kind}(url={self.url!r}, media_type={self.media_type!r})"

    @property
    def size(self) -> int:
        """How many bytes it carries (0 for one given by ``url``)."""
        return 0 if self.data is None else len(self.data)

    def base64(self) -> str:
        """Its bytes in base64 (what the providers' wire formats carry)."""
        if self.data is None:
            raise AttachmentError("an attachment given by url has no bytes to encode")
        import binascii  # only when an attachment is encoded

        return binascii.b2a_base64(self.data, newline=False).decode("ascii")

    def data_url(self) -> str:
        """``data:<media type>;base64,<bytes>``, or its ``url``."""
        if self.url is not None:
            return self.url
        return f"data:{self.media_type};base64,{self.base64()}"


@frozen(repr=False)
class Image(_Carried):
    """An image: its bytes (``data``, with ``media_type`` read from them when left out) or a
    ``url`` the provider fetches. PNG, JPEG, GIF and WebP."""

    data: bytes | None = None
    media_type: str | None = None
    url: str | None = None

    def __post_init__(self) -> None:
        self._settle("image", IMAGE_MEDIA_TYPES)

    @classmethod
    def from_file(cls, path: str | Path, media_type: str | None = None) -> Image:
        """The image in file ``path`` (its type from ``media_type``, its bytes or its name)."""
        data, media_type = _read(path, media_type)
        return cls(data=data, media_type=media_type)


@frozen(repr=False)
class Document(_Carried):
    """A document: its bytes (``data``) or a ``url``; PDF (``application/pdf``) or plain text
    (``text/plain``). ``name`` is the file name the model is told (see :attr:`filename`)."""

    data: bytes | None = None
    media_type: str | None = None
    url: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        self._settle("document", DOCUMENT_MEDIA_TYPES)

    @classmethod
    def from_file(cls, path: str | Path, media_type: str | None = None) -> Document:
        """The document in file ``path``, named after it."""
        from pathlib import Path  # only when a file is read

        data, media_type = _read(path, media_type)
        return cls(data=data, media_type=media_type, name=Path(path).name)

    @property
    def filename(self) -> str:
        """``name``, else one made from the type: ``document.pdf`` / ``document.txt``."""
        if self.name:
            return self.name
        return "document.txt" if self.media_type == "text/plain" else "document.pdf"


Attachment: TypeAlias = Image | Document
"""What a message may carry besides its text."""


def _read(path: str | Path, media_type: str | None) -> tuple[bytes, str | None]:
    from pathlib import Path  # only when a file is read

    file = Path(path)
    data = file.read_bytes()
    if media_type is None:
        media_type = sniff_media_type(data[:16]) or _SUFFIXES.get(file.suffix.lower())
    return data, media_type
