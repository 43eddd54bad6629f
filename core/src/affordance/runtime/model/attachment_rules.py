"""What a provider can carry of images and documents, and what a run does with the rest.

A model declares :class:`AttachmentSupport` (``attachment_support`` on its class): the media
types a user message may carry, those a tool result may carry, and which kinds it takes by URL.
A model that declares none carries none.

- The caller's messages (``messages=``, a loaded conversation) are checked before the first
  request: an attachment the provider cannot carry there is an ``UnsupportedAttachmentError``,
  one over the runner's ``max_attachment_bytes`` an ``AttachmentTooLargeError`` — nothing is
  sent.
- A tool result's attachments are the tool's output, which must not end a run: one the
  provider cannot carry, over the limit, or not an attachment at all is left out, and the
  model is told so in the result's text (:func:`admitted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING

from affordance._frozen import frozen
from affordance.errors import AttachmentTooLargeError, UnsupportedAttachmentError

if TYPE_CHECKING:
    from affordance.attachments import Attachment
    from affordance.runtime.model.messages import Message

__all__ = ["NO_ATTACHMENTS", "AttachmentSupport", "admitted", "refuse_unfit", "support_of"]


@frozen
class AttachmentSupport:
    """What a provider carries: ``user`` and ``tool_result`` are the media types a user
    message and a tool result may hold; ``by_url`` what it takes as a URL rather than bytes —
    a kind (``"image"``, ``"document"``: all of its types) or a media type
    (``"application/pdf"``: that one only)."""

    user: frozenset[str] = field(default_factory=frozenset)
    tool_result: frozenset[str] = field(default_factory=frozenset)
    by_url: frozenset[str] = field(default_factory=frozenset)

    def refusal(self, attachment: Attachment, place: str) -> str | None:
        """Why this provider cannot carry ``attachment`` in ``place`` (``"user"`` or
        ``"tool_result"``), or ``None`` when it can."""
        from affordance.attachments import Image

        kind = "image" if isinstance(attachment, Image) else "document"
        if attachment.url is not None:
            by_url = self.by_url
            media_type = attachment.media_type
            if kind not in by_url and not (media_type is not None and media_type in by_url):
                if media_type is None and any(_kind_of(t) == kind for t in by_url if "/" in t):
                    return None  # some of the kind's types: the provider reads which it is
                what = kind if media_type is None else f"{kind} of type {media_type}"
                return f"it takes no {what} by URL (send the bytes: data=...)"
            if media_type is None:
                return None  # the provider fetches it and reads the type itself
        accepted = self.user if place == "user" else self.tool_result
        if attachment.media_type not in accepted:
            where = "a user message" if place == "user" else "a tool result"
            takes = ", ".join(sorted(accepted)) or "nothing"
            return f"{where} cannot carry {attachment.media_type} (it takes: {takes})"
        return None


NO_ATTACHMENTS = AttachmentSupport()


def _kind_of(media_type: str) -> str:
    return "image" if media_type.startswith("image/") else "document"


def support_of(connection: object) -> AttachmentSupport:
    """What ``connection`` (a model) declares it carries; nothing when it declares nothing."""
    declared = getattr(connection, "attachment_support", None)
    return declared if isinstance(declared, AttachmentSupport) else NO_ATTACHMENTS


def refuse_unfit(
    messages: Sequence[Message],
    support: AttachmentSupport,
    limit: int | None,
    *,
    provider: str,
    prompt_name: str,
) -> None:
    """Raise for the first attachment of the caller's ``messages`` the provider cannot carry,
    or that is over ``limit`` bytes (``None``: no limit)."""
    from affordance.attachments import Document, Image
    from affordance.runtime.model.messages import ToolResultMessage, UserMessage

    for index, message in enumerate(messages):
        if not isinstance(message, (UserMessage, ToolResultMessage)) or not message.attachments:
            continue
        place = "user" if isinstance(message, UserMessage) else "tool_result"
        for attachment in message.attachments:
            where = f"message {index} carries {attachment!r}"
            if not isinstance(attachment, (Image, Document)):
                raise UnsupportedAttachmentError(
                    f"{where}: attachments are affordance.Image or affordance.Document",
                    prompt_name=prompt_name,
                    provider=provider,
                    phase="encode",
                )
            if limit is not None and attachment.size > limit:
                raise AttachmentTooLargeError(
                    f"{where}: {attachment.size} bytes, over the limit of {limit} "
                    "(max_attachment_bytes=)",
                    prompt_name=prompt_name,
                    provider=provider,
                    phase="encode",
                )
            refusal = support.refusal(attachment, place)
            if refusal is not None:
                raise UnsupportedAttachmentError(
                    f"{where}, which {provider} cannot carry: {refusal}",
                    prompt_name=prompt_name,
                    provider=provider,
                    phase="encode",
                )


def admitted(
    attachments: object, support: AttachmentSupport, limit: int | None, *, provider: str
) -> tuple[tuple[Attachment, ...], str]:
    """The attachments of a tool's result the request carries, and a note for the model about
    each left out (``""`` when none is)."""
    from affordance.attachments import Document, Image

    if not isinstance(attachments, (tuple, list)):
        return (), "\n[attachments left out: the tool returned no tuple of them]"
    kept: list[Attachment] = []
    notes: list[str] = []
    for attachment in attachments:
        if not isinstance(attachment, (Image, Document)):
            notes.append(f"an object of type {type(attachment).__name__}, not an attachment")
            continue
        if limit is not None and attachment.size > limit:
            notes.append(f"{attachment!r}: over the limit of {limit} bytes")
            continue
        refusal = support.refusal(attachment, "tool_result")
        if refusal is not None:
            notes.append(f"{attachment!r}: {provider} cannot carry it here ({refusal})")
            continue
        kept.append(attachment)
    if not notes:
        return tuple(kept), ""
    return tuple(kept), "".join(f"\n[attachment left out: {note}]" for note in notes)
