"""Images and documents on Gemini's wire, as the real ``google-genai`` client sends them.

A user message's attachments go out as ``inlineData`` / ``fileData`` parts before its text; a
tool's as the ``functionResponse``'s own ``parts``. The raw bodies are compared byte for byte
with ``tests/plugins/golden/google-gemini/attachments-*.json`` (``AFFORDANCE_REGENERATE_GOLDEN=1``
rewrites them): plain and streamed, sync and async runs all send those bytes. Every content is
read back by the SDK's own types, which write it again as the same camelCase JSON.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from golden_files import GOLDEN, check_golden
from google.genai import types
from loopback import (
    JsonReply,
    LoopbackServer,
    generate_path,
    google_function_calls,
    google_stream,
    google_text,
    stream_path,
)

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
from affordance.plugins import PluginHost
from affordance.plugins.hookspecs import hookimpl
from affordance.plugins.specs import SerializerSpec
from affordance_google import GoogleAdapter, plugin

FOLDER = GOLDEN / "google-gemini"
PATH, STREAM = generate_path("gemini-test"), stream_path("gemini-test")

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(0, 256, 9))
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
WAYS = [(False, False), (False, True), (True, False), (True, True)]
WAY_IDS = ["plain-sync", "plain-async", "streamed-sync", "streamed-async"]


# -- the prompts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartParams:
    city: str


def _chart(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok(f"temperatures in {params.city}", attachments=(Image(data=PNG),))


def _chart_and_gif(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok("two pictures", attachments=(Image(data=PNG), Image(data=GIF)))


def chart_prompt(handler: Callable[[ChartParams], ToolResult[str]] = _chart) -> PromptTemplate[Any]:
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


# -- running and comparing -------------------------------------------------------------------------


def _script(server: LoopbackServer, answers: Sequence[dict[str, Any]], *, streamed: bool) -> None:
    for answer in answers:
        if streamed:
            server.script(STREAM, google_stream(answer))
        else:
            server.script(PATH, JsonReply(answer))


def run(
    make_adapter: Callable[..., GoogleAdapter],
    prompt: PromptTemplate[Any],
    messages: list[Any],
    *,
    streamed: bool,
    asynchronous: bool,
) -> Any:
    """One run of ``prompt`` the way asked, on a fresh adapter; its response. The async side
    is its client's alone, closed in the loop that used it."""
    adapter = make_adapter(aio=asynchronous, close_clients=asynchronous)
    if not asynchronous:
        if not streamed:
            return adapter.evaluate(prompt, messages=messages)
        with adapter.stream(prompt, messages=messages) as events:
            for _ in events:
                pass
        return events.response

    async def arun() -> Any:
        try:
            if not streamed:
                return await adapter.aevaluate(prompt, messages=messages)
            async with adapter.astream(prompt, messages=messages) as events:
                async for _ in events:
                    pass
            return events.response
        finally:
            await adapter.aclose()  # its client belongs to this loop

    return asyncio.run(arun())


def _bytes_decoded(value: Any) -> Any:
    """``value`` with every ``data`` string decoded: the SDK writes URL-safe base64, the
    adapter standard base64 (the API reads both)."""
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item.replace("-", "+").replace("_", "/"))
            if key == "data" and isinstance(item, str)
            else _bytes_decoded(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_bytes_decoded(item) for item in value]
    return value


def sdk_contents(body: dict[str, Any]) -> list[types.Content]:
    """The body's contents read by the SDK's own types (unknown keys are refused there), having
    checked that the SDK writes each back as the same camelCase JSON."""
    typed = [types.Content.model_validate(content) for content in body["contents"]]
    for content, model in zip(body["contents"], typed, strict=True):
        written = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        assert _bytes_decoded(written) == _bytes_decoded(content)
    return typed


# -- a user's image and PDF ------------------------------------------------------------------------


@pytest.mark.parametrize(("streamed", "asynchronous"), WAYS, ids=WAY_IDS)
def test_a_users_image_and_pdf_go_before_the_text_as_inline_data(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    streamed: bool,
    asynchronous: bool,
) -> None:
    _script(server, [google_text("A chart and a report.")], streamed=streamed)

    response = run(make_adapter, LOOK, [USER], streamed=streamed, asynchronous=asynchronous)

    assert response.text == "A chart and a report."
    (request,) = server.requests
    check_golden(FOLDER / "attachments-user.json", request.raw_body)
    assert request.body["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()}},
        {"inlineData": {"mimeType": "application/pdf", "data": base64.b64encode(PDF).decode()}},
        {"text": "Was zeigen diese Dateien?"},
    ]
    (content,) = sdk_contents(request.body)
    image, document, _ = content.parts or []
    assert image.inline_data == types.Blob(mime_type="image/png", data=PNG)
    assert document.inline_data == types.Blob(mime_type="application/pdf", data=PDF)


def test_attachments_without_text_send_no_empty_text_part(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    server.script(PATH, JsonReply(google_text("A chart.")))
    only = UserMessage("", attachments=(Image(data=PNG),))

    make_adapter().evaluate(LOOK, messages=[only])

    (part,) = server.requests[-1].body["contents"][0]["parts"]
    assert set(part) == {"inlineData"}


def test_files_by_url_go_as_file_data_typed_by_their_suffix_or_untyped(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    server.script(PATH, JsonReply(google_text("Seen.")))
    files = "https://generativelanguage.googleapis.com/v1beta/files/abc123"
    user = UserMessage(
        "Compare them.",
        attachments=(
            Image(url="https://example.com/charts/rain.JPG?size=large#top"),
            Document(url="gs://bucket/report.pdf"),
            Document(url="https://example.com/notes", media_type="text/plain"),
            Image(url=files),
        ),
    )

    make_adapter().evaluate(LOOK, messages=[user])

    body = server.requests[-1].body
    assert body["contents"][0]["parts"] == [
        {
            "fileData": {
                "mimeType": "image/jpeg",
                "fileUri": "https://example.com/charts/rain.JPG?size=large#top",
            }
        },
        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/report.pdf"}},
        {"fileData": {"mimeType": "text/plain", "fileUri": "https://example.com/notes"}},
        {"fileData": {"fileUri": files}},
        {"text": "Compare them."},
    ]
    (content,) = sdk_contents(body)
    assert [part.file_data for part in content.parts or []][:2] == [
        types.FileData(
            mime_type="image/jpeg", file_uri="https://example.com/charts/rain.JPG?size=large#top"
        ),
        types.FileData(mime_type="application/pdf", file_uri="gs://bucket/report.pdf"),
    ]


def test_a_callers_gif_is_refused_before_any_request(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    gif = UserMessage("And this?", attachments=(Image(data=GIF),))

    with pytest.raises(UnsupportedAttachmentError, match="image/gif"):
        make_adapter().evaluate(LOOK, messages=[gif])

    assert server.requests == ()


# -- a tool's image --------------------------------------------------------------------------------


def _chart_answers() -> list[dict[str, Any]]:
    call = google_function_calls([("chart", {"city": "Zürich"}, "fc_1")], thought_signature=b"s")
    return [call, google_text("Temperatures rise through the week.")]


@pytest.mark.parametrize(("streamed", "asynchronous"), WAYS, ids=WAY_IDS)
def test_a_tools_image_goes_back_in_the_function_responses_parts(
    server: LoopbackServer,
    make_adapter: Callable[..., GoogleAdapter],
    streamed: bool,
    asynchronous: bool,
) -> None:
    _script(server, _chart_answers(), streamed=streamed)
    ask = [UserMessage("Chart Zürich's week.")]

    response = run(
        make_adapter,
        chart_prompt(),
        ask,
        streamed=streamed,
        asynchronous=asynchronous,
    )

    assert response.text == "Temperatures rise through the week."
    first, second = server.requests
    assert "inlineData" not in first.raw_body.decode()
    check_golden(FOLDER / "attachments-tool-result.json", second.raw_body)
    results = second.body["contents"][-1]
    assert results == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "fc_1",
                    "name": "chart",
                    "response": {"output": "temperatures in Zürich"},
                    "parts": [
                        {
                            "inlineData": {
                                "mimeType": "image/png",
                                "data": base64.b64encode(PNG).decode(),
                            }
                        }
                    ],
                }
            }
        ],
    }
    *_, typed = sdk_contents(second.body)
    (part,) = typed.parts or []
    reply = part.function_response
    assert reply is not None
    assert reply.response == {"output": "temperatures in Zürich"}
    assert reply.parts == [
        types.FunctionResponsePart(
            inline_data=types.FunctionResponseBlob(mime_type="image/png", data=PNG)
        )
    ]


def test_a_tools_gif_is_left_out_and_the_model_told(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    _script(server, _chart_answers(), streamed=False)

    make_adapter().evaluate(chart_prompt(_chart_and_gif), messages=[UserMessage("Draw.")])

    (part,) = server.requests[-1].body["contents"][-1]["parts"]
    reply = part["functionResponse"]
    assert [item["inlineData"]["mimeType"] for item in reply["parts"]] == ["image/png"]
    assert "[attachment left out: Image(media_type='image/gif'" in reply["response"]["output"]


class BareText:
    """A third party's ``tool_result`` serializer: the text alone, no object around it."""

    def serialize(self, message: ToolResultMessage) -> str:
        return f"plain: {message.content}"


class BareTextPlugin:
    @hookimpl
    def affordance_register_serializers(self) -> list[SerializerSpec]:
        return [SerializerSpec("google", "tool_result", f"{__name__}:BareText", priority=10)]


def test_the_attachments_go_beside_whatever_a_third_party_serializer_returns(
    server: LoopbackServer, make_adapter: Callable[..., GoogleAdapter]
) -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="google")
    host.register(BareTextPlugin(), name="bare")
    _script(server, _chart_answers(), streamed=False)

    make_adapter(registry=host.registry()).evaluate(chart_prompt(), messages=[UserMessage("Go.")])

    (part,) = server.requests[-1].body["contents"][-1]["parts"]
    reply = part["functionResponse"]
    assert reply["response"] == {"output": "plain: temperatures in Zürich"}
    assert reply["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(PNG).decode()}}
    ]
