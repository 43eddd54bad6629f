"""Images and documents on the wire, through the real ``openai`` SDK over HTTP: a user message's
attachments and a tool result's, on Responses and on Chat Completions (whose ``tool`` messages
hold no image, so a follow-up user message carries them).

The bodies are compared byte for byte with ``tests/plugins/golden/openai-*/attachments-*.json``
(regenerate with ``AFFORDANCE_REGENERATE_GOLDEN=1``, then review the diff), and each part is
validated against the SDK's own param types, unknown keys forbidden.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import pytest
from golden_files import GOLDEN, check_golden
from loopback import (
    CHAT_COMPLETIONS_PATH,
    RESPONSES_PATH,
    JsonReply,
    LoopbackServer,
    Reply,
    chat_stream,
    chat_text,
    chat_tool_calls,
    response_function_calls,
    response_text,
    responses_stream,
)
from pydantic import ConfigDict, TypeAdapter

from affordance import (
    Document,
    Image,
    MarkdownSection,
    PromptTemplate,
    Tool,
    ToolResult,
    UnsupportedAttachmentError,
)
from affordance.adapters import UserMessage
from affordance_openai import OpenAIAdapter

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
PDF = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


# -- the two runs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartParams:
    title: str


def _chart(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok(f"{params.title}: drawn", attachments=(Image(data=PNG),))


def _caption(params: ChartParams) -> ToolResult[str]:
    return ToolResult.ok(f"{params.title}: a rising line")


LOOK = PromptTemplate(
    key="look", sections=[MarkdownSection(title="Task", template="Describe what you are shown.")]
)
CHARTS = PromptTemplate(
    key="charts",
    sections=[
        MarkdownSection(
            title="Task",
            template="Draw the sales chart and caption it.",
            tools=[
                Tool[ChartParams, str](name="chart", description="Draw a chart.", handler=_chart),
                Tool[ChartParams, str](
                    name="caption", description="Caption a chart.", handler=_caption
                ),
            ],
        )
    ],
)
SHOWN = UserMessage(
    "What do these show?", attachments=(Image(data=PNG), Document(data=PDF, name="report.pdf"))
)
CALLS = [
    ("call_chart", "chart", {"title": "Sales"}),
    ("call_caption", "caption", {"title": "Sales"}),
]

APIS = {
    "responses": ("openai-responses", RESPONSES_PATH),
    "chat": ("openai-chat", CHAT_COMPLETIONS_PATH),
}


def _answers(api: str, run: str, *, streamed: bool) -> list[Reply]:
    """What the server answers ``run`` (``user``: one text; ``tool-result``: two calls, then
    a text) on ``api``, whole or as a stream."""
    replies: list[JsonReply] = []
    if run == "tool-result":
        replies.append(
            response_function_calls(CALLS) if api == "responses" else chat_tool_calls(CALLS)
        )
    replies.append(response_text("done") if api == "responses" else chat_text("done"))
    if not streamed:
        return list(replies)
    stream = responses_stream if api == "responses" else chat_stream
    return [stream(reply) for reply in replies]


def _evaluate(adapter: OpenAIAdapter, run: str, way: str) -> None:
    prompt, messages = (LOOK, [SHOWN]) if run == "user" else (CHARTS, [])
    if way == "plain":
        adapter.evaluate(prompt, messages=messages)
    elif way == "stream":
        with adapter.stream(prompt, messages=messages) as events:
            for _ in events:
                pass
    else:

        async def run_async() -> None:
            try:
                await adapter.aevaluate(prompt, messages=messages)
            finally:
                await adapter.aclose()  # its client belongs to this loop

        asyncio.run(run_async())


def sent(
    server: LoopbackServer, clients: Any, api: str, run: str, way: str = "plain"
) -> list[bytes]:
    """The raw bodies one run sends on ``api``, in order."""
    before = len(server.requests)
    server.script(APIS[api][1], *_answers(api, run, streamed=way == "stream"))
    if way == "async":  # the adapter closes it, in the loop that used it
        adapter = OpenAIAdapter("gpt-test", client=clients.async_(), api=api, close_clients=True)
    else:
        adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api=api)
    _evaluate(adapter, run, way)
    server.assert_script_consumed()
    return [request.raw_body for request in server.requests[before:]]


# -- golden bodies -------------------------------------------------------------------------------


@pytest.mark.parametrize("run", ["user", "tool-result"])
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_the_body_carrying_attachments_is_byte_identical_to_its_golden_file(
    server: LoopbackServer, clients: Any, api: str, run: str
) -> None:
    bodies = sent(server, clients, api, run)

    check_golden(GOLDEN / APIS[api][0] / f"attachments-{run}.json", bodies[-1])


def test_responses_sends_a_users_image_and_pdf_as_input_parts(
    server: LoopbackServer, clients: Any
) -> None:
    (body,) = sent(server, clients, "responses", "user")

    (message,) = json.loads(body)["input"]
    assert message == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "What do these show?"},
            {"type": "input_image", "image_url": Image(data=PNG).data_url(), "detail": "auto"},
            {
                "type": "input_file",
                "file_data": "data:application/pdf;base64," + Document(data=PDF).base64(),
                "filename": "report.pdf",
            },
        ],
    }


def test_responses_sends_a_tools_image_in_its_function_call_output(
    server: LoopbackServer, clients: Any
) -> None:
    body = json.loads(sent(server, clients, "responses", "tool-result")[-1])

    chart, caption = (item for item in body["input"] if item.get("type") == "function_call_output")
    assert chart["output"] == [
        {"type": "input_text", "text": "Sales: drawn"},
        {"type": "input_image", "image_url": Image(data=PNG).data_url(), "detail": "auto"},
    ]
    assert caption["output"] == "Sales: a rising line"  # no attachment: the text, as before


def test_chat_follows_the_turns_tool_messages_with_one_user_message_of_attachments(
    server: LoopbackServer, clients: Any
) -> None:
    messages = json.loads(sent(server, clients, "chat", "tool-result")[-1])["messages"]

    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert [m["content"] for m in messages[2:4]] == ["Sales: drawn", "Sales: a rising line"]
    assert messages[-1]["content"] == [
        {"type": "text", "text": "Attachments of the result of call call_chart (chart):"},
        {"type": "image_url", "image_url": {"url": Image(data=PNG).data_url()}},
    ]


# -- the SDK's own types -------------------------------------------------------------------------


def strictly(param_type: Any, value: dict[str, Any]) -> None:
    """``value`` is a valid ``param_type`` (an SDK TypedDict), with no key it does not know: the
    config reaches the TypedDict through the list around it. A ``content`` the SDK types as an
    ``Iterable`` is validated as it is read."""
    validator = TypeAdapter(list[param_type], config=ConfigDict(extra="forbid"))
    (validated,) = validator.validate_python([value])
    if "content" in validated and not isinstance(validated["content"], (str, list)):
        validated["content"] = list(validated["content"])
    assert validated == value


def test_every_responses_item_with_attachments_is_one_of_the_sdks_param_types(
    server: LoopbackServer, clients: Any
) -> None:
    # the SDKs before function outputs took a list of parts have no such module
    pytest.importorskip("openai.types.responses.response_function_call_output_item_param")
    items = pytest.importorskip("openai.types.responses.response_input_item_param")
    easy = pytest.importorskip("openai.types.responses.easy_input_message_param")
    urls = UserMessage(
        "And these?",
        attachments=(Image(url="https://example.com/a.png"), Document(url="https://e.com/b.pdf")),
    )
    server.script(RESPONSES_PATH, response_text("done"))
    OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(LOOK, messages=[SHOWN, urls])
    user_bodies = [json.loads(server.requests[-1].raw_body)]
    tool_body = json.loads(sent(server, clients, "responses", "tool-result")[-1])

    for message in user_bodies[0]["input"]:
        strictly(easy.EasyInputMessageParam, message)
    outputs = [item for item in tool_body["input"] if item.get("type") == "function_call_output"]
    for output in outputs:
        strictly(items.FunctionCallOutput, output)


def test_every_chat_message_with_attachments_is_one_of_the_sdks_param_types(
    server: LoopbackServer, clients: Any
) -> None:
    parts = pytest.importorskip("openai.types.chat.chat_completion_content_part_param")
    if "filename" not in getattr(getattr(parts, "FileFile", None), "__annotations__", {}):
        pytest.skip("this openai SDK types no file part, or names its field file_name (1.66)")
    user = pytest.importorskip("openai.types.chat.chat_completion_user_message_param")
    tool = pytest.importorskip("openai.types.chat.chat_completion_tool_message_param")
    bodies = [sent(server, clients, "chat", run)[-1] for run in ("user", "tool-result")]

    for body in bodies:
        for message in json.loads(body)["messages"]:
            if message["role"] == "tool":
                strictly(tool.ChatCompletionToolMessageParam, message)
            elif message["role"] == "user":
                strictly(user.ChatCompletionUserMessageParam, message)


# -- by URL, and what is refused -----------------------------------------------------------------


def test_responses_sends_an_image_and_a_document_by_url(
    server: LoopbackServer, clients: Any
) -> None:
    message = UserMessage(
        "Look.",
        attachments=(
            Image(url="https://example.com/chart.png"),
            Document(url="https://example.com/report.pdf"),
        ),
    )
    server.script(RESPONSES_PATH, response_text("done"))

    OpenAIAdapter("gpt-test", client=clients.sync()).evaluate(LOOK, messages=[message])

    assert server.requests[-1].body["input"][0]["content"][1:] == [
        {"type": "input_image", "image_url": "https://example.com/chart.png", "detail": "auto"},
        {"type": "input_file", "file_url": "https://example.com/report.pdf"},
    ]


def test_chat_sends_an_image_by_url(server: LoopbackServer, clients: Any) -> None:
    message = UserMessage("Look.", attachments=(Image(url="https://example.com/chart.png"),))
    server.script(CHAT_COMPLETIONS_PATH, chat_text("done"))

    OpenAIAdapter("gpt-test", client=clients.sync(), api="chat").evaluate(LOOK, messages=[message])

    assert server.requests[-1].body["messages"][-1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.com/chart.png"},
    }


@pytest.mark.parametrize(
    "attachment",
    [
        Document(url="https://example.com/report.pdf"),
        Document(data=b"notes", media_type="text/plain"),
    ],
    ids=["document-url", "plain-text"],
)
def test_chat_refuses_a_document_it_cannot_carry_before_any_request(
    server: LoopbackServer, clients: Any, attachment: Document
) -> None:
    adapter = OpenAIAdapter("gpt-test", client=clients.sync(), api="chat")

    with pytest.raises(UnsupportedAttachmentError):
        adapter.evaluate(LOOK, messages=[UserMessage("Read it.", attachments=(attachment,))])

    assert len(server.requests) == 0


def test_responses_carries_a_plain_text_document_as_a_file(
    server: LoopbackServer, clients: Any
) -> None:
    notes = Document(data=b"notes", media_type="text/plain")
    server.script(RESPONSES_PATH, response_text("done"))

    adapter = OpenAIAdapter("gpt-test", client=clients.sync())
    adapter.evaluate(LOOK, messages=[UserMessage("Read it.", attachments=(notes,))])

    assert server.requests[-1].body["input"][0]["content"][1] == {
        "type": "input_file",
        "file_data": "data:text/plain;base64,bm90ZXM=",
        "filename": "document.txt",
    }


def test_chat_carries_a_tools_pdf_and_leaves_out_its_plain_text_with_a_note(
    server: LoopbackServer, clients: Any
) -> None:
    def read(params: ChartParams) -> ToolResult[str]:
        notes = Document(data=b"notes", media_type="text/plain")
        return ToolResult.ok("read", attachments=(Document(data=PDF, name="q3.pdf"), notes))

    reader = Tool[ChartParams, str](name="read", description="Read a report.", handler=read)
    prompt = PromptTemplate(
        key="read", sections=[MarkdownSection(title="Task", template="Read.", tools=[reader])]
    )
    server.script(
        CHAT_COMPLETIONS_PATH,
        chat_tool_calls([("call_read", "read", {"title": "Q3"})]),
        chat_text("done"),
    )

    OpenAIAdapter("gpt-test", client=clients.sync(), api="chat").evaluate(prompt)

    *_, result, follow_up = server.requests[-1].body["messages"]
    assert result["content"].startswith("read\n[attachment left out: Document(media_type=")
    assert follow_up["content"][1] == {
        "type": "file",
        "file": {"file_data": Document(data=PDF).data_url(), "filename": "q3.pdf"},
    }


# -- every driver sends the same ---------------------------------------------------------------


@pytest.mark.parametrize("run", ["user", "tool-result"])
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_the_async_driver_sends_the_sync_bytes(
    server: LoopbackServer, clients: Any, api: str, run: str
) -> None:
    synchronous = sent(server, clients, api, run)

    asynchronous = sent(server, clients, api, run, "async")

    assert asynchronous == synchronous


@pytest.mark.parametrize("run", ["user", "tool-result"])
@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_streamed_run_carries_the_same_input(
    server: LoopbackServer, clients: Any, api: str, run: str
) -> None:
    plain = [json.loads(body) for body in sent(server, clients, api, run)]

    streamed = [json.loads(body) for body in sent(server, clients, api, run, "stream")]

    for body in streamed:
        assert body.pop("stream") is True
        body.pop("stream_options", None)
    assert streamed == plain
