"""``content_parts`` and ``url_media_type`` (``affordance.adapters.attachment_parts``): a
message's text and attachments as one list of content parts in a provider's shapes, and the
media type a URL's suffix names."""

from __future__ import annotations

from typing import Any

import pytest

from affordance.adapters import content_parts, url_media_type
from affordance.attachments import Attachment, Document, Image

PNG = Image(data=b"\x89PNG\r\n\x1a\n" + bytes(16))
PDF = Document(url="https://example.com/report.pdf")


def part(attachment: Attachment) -> dict[str, Any]:
    """A made-up provider's part: the attachment's kind and where it is."""
    kind = "image" if isinstance(attachment, Image) else "document"
    return {"type": kind, "at": attachment.url or "bytes"}


def test_a_text_comes_first_as_a_text_part_of_the_providers_type() -> None:
    parts = content_parts("Look.", (PNG, PDF), part, "input_text")

    assert parts == [
        {"type": "input_text", "text": "Look."},
        {"type": "image", "at": "bytes"},
        {"type": "document", "at": "https://example.com/report.pdf"},
    ]


def test_text_last_puts_the_attachments_first() -> None:
    parts = content_parts("Look.", (PNG,), part, text_last=True)

    assert parts == [{"type": "image", "at": "bytes"}, {"type": "text", "text": "Look."}]


@pytest.mark.parametrize("empty", ["", None])
def test_an_empty_text_or_none_is_no_part(empty: str | None) -> None:
    assert content_parts(empty, (PNG,), part) == [{"type": "image", "at": "bytes"}]
    assert content_parts(empty, (), part) == []


TEXT_A = {"type": "text", "text": "a"}


@pytest.mark.parametrize("made", [[TEXT_A], (TEXT_A,)])
def test_parts_a_serializer_made_are_kept_in_order_ahead_of_the_attachments(made: Any) -> None:
    parts = content_parts(made, (PNG,), part)

    assert parts == [TEXT_A, {"type": "image", "at": "bytes"}]
    assert parts is not made  # a new list: the serializer's own is not changed


def test_anything_else_a_serializer_made_is_one_part_as_it_is() -> None:
    block = {"type": "search_result", "source": "s"}

    assert content_parts(block, (PDF,), part) == [
        block,
        {"type": "document", "at": "https://example.com/report.pdf"},
    ]


GEMINI_TYPES = frozenset({"image/png", "image/jpeg", "application/pdf", "text/plain"})


@pytest.mark.parametrize(
    ("attachment", "expected"),
    [
        (Image(url="https://x.test/a/chart.PNG?size=2#top"), "image/png"),
        (Image(url="https://x.test/photo.jpeg"), "image/jpeg"),
        (Document(url="https://x.test/notes.txt"), "text/plain"),
        (Image(url="https://x.test/anim.gif"), None),  # not among the provider's types
        (Image(url="https://x.test/report.pdf"), None),  # a document's suffix on an image
        (Document(url="https://x.test/chart.png"), None),  # an image's suffix on a document
        (Document(url="https://x.test/files/abc123"), None),  # no suffix
        (Image(url="https://x.test/chart.png", media_type="image/jpeg"), "image/jpeg"),
        (PNG, "image/png"),  # bytes: its own type
    ],
)
def test_a_url_media_type_is_its_own_else_the_one_its_suffix_names(
    attachment: Attachment, expected: str | None
) -> None:
    assert url_media_type(attachment, GEMINI_TYPES) == expected
