"""Images and documents: built from bytes, a file or a URL, with a clear error for what cannot
be one; carried by a user message and by a tool result to the model on every entry point; a
caller's attachment the provider cannot carry, or over the size limit, refused before any
request; a tool's, left out with a note to the model while the run goes on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from drivers import DRIVERS, run

from affordance import (
    AttachmentError,
    AttachmentTooLargeError,
    Document,
    Image,
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolResult,
    UnsupportedAttachmentError,
)
from affordance.adapters import AttachmentSupport, ToolResultMessage, UserMessage
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 12
PDF = b"%PDF-1.7\n" + b"\x00" * 40
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 "


@pytest.mark.parametrize(
    ("data", "media_type"),
    [(PNG, "image/png"), (JPEG, "image/jpeg"), (b"GIF89a...", "image/gif"), (WEBP, "image/webp")],
)
def test_an_images_type_is_read_from_its_bytes(data: bytes, media_type: str) -> None:
    image = Image(data=data)
    assert image.media_type == media_type
    assert image.data_url().startswith(f"data:{media_type};base64,")


def test_a_document_is_a_pdf_or_plain_text_and_has_a_file_name() -> None:
    assert Document(data=PDF).media_type == "application/pdf"
    assert Document(data=PDF).filename == "document.pdf"
    notes = Document(data=b"plain words", media_type="text/plain", name="notes.txt")
    assert notes.filename == "notes.txt"


def test_from_file_reads_bytes_and_type_and_names_a_document(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    (tmp_path / "terms.txt").write_bytes(b"Terms.")
    assert Image.from_file(tmp_path / "chart.png") == Image(data=PNG, media_type="image/png")
    terms = Document.from_file(tmp_path / "terms.txt")
    assert (terms.media_type, terms.name, terms.data) == ("text/plain", "terms.txt", b"Terms.")


@pytest.mark.parametrize(
    ("build", "says"),
    [
        (lambda: Image(), "needs data=... (its bytes) or url=..., one of them"),
        (lambda: Image(data=PNG, url="https://x/y.png"), "one of them"),
        (lambda: Image(data=b"not an image"), "cannot tell the image's type"),
        (lambda: Image(data=PNG, media_type="image/tiff"), "'image/tiff' is not one of"),
        (lambda: Image(url="chart.png"), "must be an absolute URL"),
        (lambda: Image(data="text"), "data must be bytes, got str"),
        (lambda: Document(data=PNG, media_type="image/png"), "is not one of application/pdf"),
    ],
)
def test_what_cannot_be_an_attachment_is_a_clear_error(build: Any, says: str) -> None:
    with pytest.raises(AttachmentError, match=says.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_the_repr_never_shows_the_bytes() -> None:
    assert repr(Image(data=PNG)) == "Image(media_type='image/png', 32 bytes)"
    assert repr(Document(url="https://x/a.pdf")) == (
        "Document(url='https://x/a.pdf', media_type=None)"
    )


@dataclass(frozen=True)
class ChartParams:
    metric: str


def chart(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok(f"{params.metric} chart", attachments=(Image(data=PNG),))


def huge(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok("big", attachments=(Image(data=PNG + b"\x00" * 2000),))


def careless(params: ChartParams) -> ToolResult[str]:
    return ToolResult(message="odd", value="x", attachments=["not an image", Image(data=PNG)])  # type: ignore[list-item]


PROMPT = PromptTemplate(
    key="charts",
    sections=[
        MarkdownSection(
            title="Charts",
            template="Draw charts.",
            tools=[
                Tool[ChartParams, str](name="chart", description="Draw.", handler=chart),
                Tool[ChartParams, str](name="huge", description="Huge.", handler=huge),
                Tool[ChartParams, str](name="careless", description="Odd.", handler=careless),
            ],
        )
    ],
)


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_user_image_and_a_tool_image_reach_the_model(driver: str) -> None:
    screenshot = Image(data=PNG)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("chart", {"metric": "sales"})), text("Sales are up.")]
    )
    asked = UserMessage("What does this show?", attachments=(screenshot, Document(data=PDF)))
    response, _ = run(adapter, PROMPT, driver, messages=[asked])

    assert response.text == "Sales are up."
    assert adapter.requests[0].messages[0] == asked
    result = adapter.requests[1].messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert result.attachments == (Image(data=PNG),)
    assert result.content == "sales chart"


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_tools_attachment_over_the_limit_or_not_one_is_left_out_and_the_model_told(
    driver: str,
) -> None:
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("huge", {"metric": "a"}), tool_call("careless", {"metric": "b"})),
            text("Noted."),
        ],
        max_attachment_bytes=1000,
    )
    response, _ = run(adapter, PROMPT, driver)

    assert response.text == "Noted."
    huge_result, careless_result = adapter.requests[1].messages[-2:]
    assert isinstance(huge_result, ToolResultMessage)
    assert isinstance(careless_result, ToolResultMessage)
    assert huge_result.attachments == ()
    assert "[attachment left out: Image(media_type='image/png', 2032 bytes): over the limit" in (
        huge_result.content
    )
    assert careless_result.attachments == (Image(data=PNG),)
    assert "an object of type str, not an attachment" in careless_result.content


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_callers_attachment_over_the_limit_is_refused_before_any_request(driver: str) -> None:
    adapter = ScriptedAdapter([text("never")], max_attachment_bytes=16)
    big = UserMessage("look", attachments=(Image(data=PNG),))

    with pytest.raises(AttachmentTooLargeError, match="32 bytes, over the limit of 16"):
        run(adapter, PROMPT, driver, messages=[big])
    assert adapter.sent == 0


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_attachment_the_provider_cannot_carry_is_refused_before_any_request(
    driver: str,
) -> None:
    adapter = ScriptedAdapter([text("never")])
    adapter.connection.attachment_support = AttachmentSupport(user=frozenset({"image/png"}))  # type: ignore[misc]
    pdf = UserMessage("read", attachments=(Document(data=PDF),))

    with pytest.raises(UnsupportedAttachmentError, match="cannot carry application/pdf"):
        run(adapter, PROMPT, driver, messages=[pdf])
    with pytest.raises(UnsupportedAttachmentError, match="takes no image by URL"):
        run(adapter, PROMPT, driver, messages=[UserMessage("x", (Image(url="https://a/b.png"),))])
    assert adapter.sent == 0


def test_a_tool_image_the_provider_cannot_carry_in_a_result_is_left_out() -> None:
    adapter = ScriptedAdapter([tool_calls(tool_call("chart", {"metric": "m"})), text("ok")])
    adapter.connection.attachment_support = AttachmentSupport()  # type: ignore[misc]
    adapter.evaluate(PROMPT)

    result = adapter.requests[1].messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert result.attachments == ()
    assert "scripted cannot carry it here (a tool result cannot carry image/png" in result.content


def test_by_url_names_a_kind_or_single_media_types() -> None:
    pdf_only = AttachmentSupport(
        user=frozenset({"application/pdf", "text/plain"}), by_url=frozenset({"application/pdf"})
    )
    assert (
        pdf_only.refusal(Document(url="https://a/b.pdf", media_type="application/pdf"), "user")
        is None
    )
    assert pdf_only.refusal(Document(url="https://a/b"), "user") is None  # the provider reads it
    refused = pdf_only.refusal(Document(url="https://a/b.txt", media_type="text/plain"), "user")
    assert refused == "it takes no document of type text/plain by URL (send the bytes: data=...)"
    assert pdf_only.refusal(Image(url="https://a/b.png"), "user") == (
        "it takes no image by URL (send the bytes: data=...)"
    )
