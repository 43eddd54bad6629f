"""Images and documents on the Messages wire, as the real ``anthropic`` clients send them.

A user message's attachments go out as ``image`` / ``document`` blocks before its text block; a
tool's after the text inside the ``tool_result`` block's ``content`` list. The raw bodies are
compared byte for byte with ``tests/plugins/golden/anthropic-messages/attachments-*.json``
(``AFFORDANCE_REGENERATE_GOLDEN=1`` rewrites them); the async driver sends the sync bytes and a
streamed run the same content. Every message is checked against the SDK's own param types.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pytest
from anthropic.types import (
    Base64ImageSourceParam,
    Base64PDFSourceParam,
    DocumentBlockParam,
    ImageBlockParam,
    MessageParam,
    PlainTextSourceParam,
    TextBlockParam,
    ToolResultBlockParam,
    URLImageSourceParam,
    URLPDFSourceParam,
)
from golden_files import GOLDEN, check_golden
from loopback import message_text, message_tool_uses
from pydantic import TypeAdapter, ValidationError

from affordance import (
    Document,
    Image,
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolResult,
    UnsupportedAttachmentError,
)
from affordance.adapters import ToolResultMessage, UserMessage
from affordance_anthropic._attachments import with_attachments

FOLDER = GOLDEN / "anthropic-messages"
Mode = Literal["evaluate", "aevaluate", "stream", "astream"]
MODES: tuple[Mode, ...] = ("evaluate", "aevaluate", "stream", "astream")
"""The four ways ``loopback.run`` evaluates (the ``loopback`` fixture is conftest.py's)."""

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(0, 256, 11))
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
TEXT = "Messwerte Zürich: 14 °C, Regen.\n".encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- the prompts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartParams:
    city: str


def _chart(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok(f"temperatures in {params.city}", attachments=(Image(data=PNG),))


def _chart_by_url(params: ChartParams) -> ToolResult[str]:
    notes = Document(url="https://example.com/notes.txt", media_type="text/plain")
    return ToolResult.ok("a chart and notes", attachments=(Image(data=PNG), notes))


def chart_prompt(handler: Any = _chart) -> PromptTemplate[Any]:
    chart = Tool[ChartParams, str](name="chart", description="Draws a chart.", handler=handler)
    task: MarkdownSection[Any] = MarkdownSection(
        title="Task", template="Describe the chart.", tools=[chart]
    )
    return PromptTemplate(ns="tests", key="chart", sections=[task])


LOOK: PromptTemplate[Any] = PromptTemplate(
    ns="tests", key="look", sections=[MarkdownSection(title="Task", template="Look closely.")]
)
USER = UserMessage(
    "Was zeigen diese Dateien?",
    attachments=(Image(data=PNG), Document(data=PDF, name="report.pdf")),
)
CHART_CALL = ("toolu_1", "chart", {"city": "Zürich"})


# -- comparing ---------------------------------------------------------------------------------


def check_golden_of(name: str, mode: Mode, raw: bytes, body: Mapping[str, Any]) -> None:
    """A plain request's raw bytes are the golden file's (sync and async alike); a streamed
    one's body is the golden body with ``stream: true``."""
    path = FOLDER / name
    if mode in ("stream", "astream"):
        expected = json.loads(path.read_bytes())
        assert body == {**expected, "stream": True}
        return
    check_golden(path, raw)


def _materialized(value: Any) -> Any:
    """A validated value with pydantic's lazy iterators (the SDK's ``Iterable[...]`` fields)
    read into lists, so it compares with what was sent."""
    if isinstance(value, Mapping):
        return {key: _materialized(item) for key, item in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return [_materialized(item) for item in value]
    return value


@functools.cache
def _adapter(param_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(param_type)


def sdk_typed(value: Any, param_type: Any) -> Any:
    """``value`` validated as the SDK's TypedDict ``param_type``; it must come back unchanged
    (pydantic drops keys a TypedDict does not name, so a stray key fails here too)."""
    adapter = _adapter(param_type)  # kept alive: the lazy iterators read its definitions
    validated = _materialized(adapter.validate_python(value))
    assert validated == value
    return validated


def sdk_messages(body: Mapping[str, Any]) -> list[Any]:
    return [sdk_typed(message, MessageParam) for message in body["messages"]]


# -- a user's image and PDF --------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_users_image_and_pdf_go_before_the_text_as_base64_blocks(
    loopback: Any, mode: Mode
) -> None:
    loopback.script(mode, message_text("A chart and a report."))

    response = loopback.run(mode, LOOK, messages=[USER])

    assert response.text == "A chart and a report."
    (request,) = loopback.server.requests
    check_golden_of("attachments-user.json", mode, request.raw_body, request.body)
    image, document, text = request.body["messages"][0]["content"]
    assert image == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)},
    }
    assert document == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)},
        "title": "report.pdf",
    }
    assert text == {"type": "text", "text": "Was zeigen diese Dateien?"}
    sdk_messages(request.body)
    sdk_typed(image, ImageBlockParam)
    sdk_typed(image["source"], Base64ImageSourceParam)
    sdk_typed(document, DocumentBlockParam)
    sdk_typed(document["source"], Base64PDFSourceParam)
    sdk_typed(text, TextBlockParam)


def test_a_plain_text_document_goes_as_its_text(loopback: Any) -> None:
    loopback.script("evaluate", message_text("Rain."))
    notes = Document(data=TEXT, media_type="text/plain", name="messwerte.txt")

    loopback.run("evaluate", LOOK, messages=[UserMessage("Summarise.", attachments=(notes,))])

    (request,) = loopback.server.requests
    check_golden_of("attachments-text.json", "evaluate", request.raw_body, request.body)
    document, _ = request.body["messages"][0]["content"]
    assert document == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": TEXT.decode()},
        "title": "messwerte.txt",
    }
    sdk_messages(request.body)
    sdk_typed(document, DocumentBlockParam)
    sdk_typed(document["source"], PlainTextSourceParam)


def test_an_image_and_a_pdf_by_url_go_as_url_sources(loopback: Any) -> None:
    loopback.script("evaluate", message_text("Seen."))
    user = UserMessage(
        "Compare them.",
        attachments=(
            Image(url="https://example.com/charts/rain.png"),
            Document(url="https://example.com/report.pdf"),
        ),
    )

    loopback.run("evaluate", LOOK, messages=[user])

    image, document, _ = loopback.server.requests[-1].body["messages"][0]["content"]
    assert image == {
        "type": "image",
        "source": {"type": "url", "url": "https://example.com/charts/rain.png"},
    }
    assert document == {
        "type": "document",
        "source": {"type": "url", "url": "https://example.com/report.pdf"},
    }
    sdk_messages(loopback.server.requests[-1].body)
    sdk_typed(image["source"], URLImageSourceParam)
    sdk_typed(document["source"], URLPDFSourceParam)


def test_attachments_without_text_send_no_empty_text_block(loopback: Any) -> None:
    loopback.script("evaluate", message_text("A chart."))

    loopback.run("evaluate", LOOK, messages=[UserMessage("", attachments=(Image(data=PNG),))])

    (block,) = loopback.server.requests[-1].body["messages"][0]["content"]
    assert block["type"] == "image"


def test_a_callers_plain_text_by_url_is_refused_before_any_request(loopback: Any) -> None:
    notes = Document(url="https://example.com/notes.txt", media_type="text/plain")

    with pytest.raises(
        UnsupportedAttachmentError, match="takes no document of type text/plain by URL"
    ):
        loopback.run("evaluate", LOOK, messages=[UserMessage("Read.", attachments=(notes,))])

    assert loopback.server.requests == ()


# -- a tool's image ----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_tools_image_follows_the_text_in_the_tool_result_content(
    loopback: Any, mode: Mode
) -> None:
    loopback.script(
        mode, message_tool_uses([CHART_CALL]), message_text("Temperatures rise all week.")
    )

    response = loopback.run(mode, chart_prompt(), messages=[UserMessage("Chart Zürich.")])

    assert response.text == "Temperatures rise all week."
    first, second = loopback.server.requests
    assert b'"image"' not in first.raw_body
    check_golden_of("attachments-tool-result.json", mode, second.raw_body, second.body)
    results = second.body["messages"][-1]
    (result,) = results["content"]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {"type": "text", "text": "temperatures in Zürich"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)},
            },
        ],
    }
    sdk_messages(second.body)
    sdk_typed(result, ToolResultBlockParam)


def test_a_tools_plain_text_by_url_is_left_out_and_the_model_told(loopback: Any) -> None:
    loopback.script("evaluate", message_tool_uses([CHART_CALL]), message_text("Done."))

    loopback.run("evaluate", chart_prompt(_chart_by_url), messages=[UserMessage("Go.")])

    (result,) = loopback.server.requests[-1].body["messages"][-1]["content"]
    text, image = result["content"]
    assert image["type"] == "image"
    assert "[attachment left out: Document(url='https://example.com/notes.txt'" in text["text"]
    assert "takes no document of type text/plain by URL" in text["text"]


class ListContent:
    """A third party's ``tool_result`` serializer whose ``content`` is already a list."""

    def serialize(self, message: ToolResultMessage) -> dict[str, Any]:
        text = {"type": "text", "text": f"custom: {message.content}"}
        return {"type": "tool_result", "tool_use_id": message.call_id, "content": [text]}


def test_the_attachments_follow_a_third_party_serializers_own_blocks(loopback: Any) -> None:
    loopback.script("evaluate", message_tool_uses([CHART_CALL]), message_text("Done."))

    loopback.run(
        "evaluate",
        chart_prompt(),
        messages=[UserMessage("Go.")],
        adapter_options={"serializers": {"tool_result": ListContent()}},
    )

    (result,) = loopback.server.requests[-1].body["messages"][-1]["content"]
    text, image = result["content"]
    assert text["text"].startswith("custom: ")
    assert image["source"]["media_type"] == "image/png"
    sdk_typed(result, ToolResultBlockParam)


BMP = {"type": "base64", "media_type": "image/bmp", "data": "AA"}


@pytest.mark.parametrize(
    ("block", "failure"),
    [
        ({"type": "image", "source": BMP}, ValidationError),
        ({"type": "document", "source": {"type": "url", "url": "https://x"}, "name": "a"}, None),
        ({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "x"}]}, ValidationError),
    ],
    ids=["bad-media-type", "stray-key", "unknown-block"],
)
def test_the_sdk_check_refuses_what_the_sdk_types_do_not_allow(
    block: dict[str, Any], failure: type[Exception] | None
) -> None:
    with pytest.raises(failure or AssertionError):  # a stray key is dropped, not refused
        sdk_typed({"role": "user", "content": [block]}, MessageParam)


def test_the_serializers_block_is_copied_not_changed() -> None:
    block = {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True}

    carried = with_attachments(block, (Document(data=PDF),))

    assert block == {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True}
    assert carried == {
        **block,
        "content": [
            {
                "type": "document",
                "source": {"type": "base64", "media_type": "application/pdf", "data": b64(PDF)},
            }
        ],
    }
    sdk_typed(carried, ToolResultBlockParam)
