"""What an MCP tool call gives back, as the value of its ``ToolResult``.

:class:`MCPToolOutput` keeps everything the server sent — each content block as a typed part,
the ``structuredContent`` (already checked by the SDK against the tool's ``outputSchema``), the
error flag — and renders the text the model reads: the text parts, a short description of each
image, audio or resource part, the structured content as JSON when there is no text. Past
``max_chars`` the model's text is cut in the middle, head and tail kept, and says so; the whole
output stays in the value for the program. :meth:`MCPToolOutput.attachments` are the parts the
model can also see as they are — images (PNG, JPEG, GIF, WebP) and embedded PDF or text
documents — which the tool's result carries to the provider (``affordance.Image`` and
``affordance.Document``).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

import mcp_types

from affordance import AttachmentError, Document, Image

__all__ = [
    "BinaryPart",
    "MCPToolOutput",
    "Part",
    "ResourcePart",
    "TextPart",
    "cut_middle",
    "output_from",
]


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str

    def describe(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class BinaryPart:
    """An image or audio block: ``kind`` ("image" or "audio"), its media type, and its bytes
    as the server sent them, base64 (so the output stays JSON: a durable run carries it)."""

    kind: str
    media_type: str
    base64: str = field(repr=False)

    @property
    def data(self) -> bytes:
        return _decoded(self.base64)

    def describe(self) -> str:
        return f"[{self.kind} {self.media_type}, {_decoded_size(self.base64):,} bytes]"


@dataclass(frozen=True, slots=True)
class ResourcePart:
    """An embedded resource (``text``, or ``blob``: base64 bytes) or a link to one (neither)."""

    uri: str
    media_type: str | None = None
    text: str | None = None
    blob: str | None = field(default=None, repr=False)
    name: str | None = None

    @property
    def data(self) -> bytes | None:
        return None if self.blob is None else _decoded(self.blob)

    def describe(self) -> str:
        if self.text is not None:
            return f"[resource {self.uri}]\n{self.text}"
        kind = self.media_type or "resource"
        if self.blob is not None:
            return f"[resource {self.uri}: {kind}, {_decoded_size(self.blob):,} bytes]"
        label = f" ({self.name})" if self.name else ""
        return f"[link to resource {self.uri}{label}]"


Part = TextPart | BinaryPart | ResourcePart

_DOCUMENT_TYPES = ("application/pdf", "text/plain")


@dataclass(frozen=True, slots=True)
class MCPToolOutput:
    """One call's whole answer. ``render()`` is the model's text (cut past ``max_chars``)."""

    server: str
    tool: str
    parts: tuple[Part, ...] = ()
    structured: Any = None
    is_error: bool = False
    max_chars: int | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """Every part as text, uncut."""
        if not self.parts and self.structured is not None:
            return json.dumps(self.structured, separators=(",", ":"), ensure_ascii=False)
        return "\n".join(part.describe() for part in self.parts)

    def render(self) -> str:
        text = self.text
        return text if self.max_chars is None else cut_middle(text, self.max_chars)

    def attachments(self) -> tuple[Image | Document, ...]:
        """The images and embedded documents among the parts, as attachments for the model
        (a part of a type no provider takes, or whose bytes do not fit its type, stays text)."""
        found: list[Image | Document] = []
        for part in self.parts:
            try:
                attachment = _attachment(part)
            except AttachmentError:
                continue
            if attachment is not None:
                found.append(attachment)
        return tuple(found)


def _attachment(part: Part) -> Image | Document | None:
    if isinstance(part, BinaryPart) and part.kind == "image":
        return Image(data=part.data, media_type=part.media_type)
    if isinstance(part, ResourcePart) and part.blob is not None:
        if part.media_type not in _DOCUMENT_TYPES:
            return None
        name = part.uri.rsplit("/", 1)[-1] or None
        return Document(data=part.data, media_type=part.media_type, name=name)
    return None


def cut_middle(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail around a note."""
    if len(text) <= limit:
        return text
    note = "\n[... {} characters cut; the whole result is kept in the program's ToolResult ...]\n"
    keep = max(limit - len(note) - 10, 0)
    head = keep - keep // 3
    tail = keep - head
    cut = len(text) - head - tail
    return f"{text[:head]}{note.format(f'{cut:,}')}{text[len(text) - tail :] if tail else ''}"


def output_from(
    result: mcp_types.CallToolResult, *, server: str, tool: str, max_chars: int | None
) -> MCPToolOutput:
    """The typed output of one ``CallToolResult``."""
    return MCPToolOutput(
        server=server,
        tool=tool,
        parts=tuple(_part(block) for block in result.content),
        structured=result.structured_content,
        is_error=bool(result.is_error),
        max_chars=max_chars,
    )


def _part(block: Any) -> Part:
    if isinstance(block, mcp_types.TextContent):
        return TextPart(block.text)
    if isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
        return BinaryPart(block.type, block.mime_type, block.data)
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        uri = str(resource.uri)
        if isinstance(resource, mcp_types.TextResourceContents):
            return ResourcePart(uri, resource.mime_type, text=resource.text)
        return ResourcePart(uri, resource.mime_type, blob=resource.blob)
    if isinstance(block, mcp_types.ResourceLink):
        return ResourcePart(str(block.uri), block.mime_type, name=block.name)
    return TextPart(f"[{getattr(block, 'type', 'unknown')} content]")


def _decoded(data: str) -> bytes:
    """The bytes of base64 ``data`` (a server that sent something else: its UTF-8 bytes)."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return data.encode()


def _decoded_size(data: str) -> int:
    """How many bytes base64 ``data`` holds, without decoding it."""
    stripped = data.rstrip("=")
    return len(stripped) * 3 // 4
