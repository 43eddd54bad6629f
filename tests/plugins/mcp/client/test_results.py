"""What a call gives back: typed parts and structured content in the program's value, and the
text the provider gets — images described, long text cut to its head and tail."""

from __future__ import annotations

import base64

from mcp_client_support import CALL_TIMEOUT, evaluate, prompt_of, tool_messages

from affordance import Document, Image
from affordance.testing import ScriptedAdapter, text, tool_call, tool_calls
from affordance_mcp import (
    BinaryPart,
    MCPConnection,
    MCPSection,
    MCPToolOutput,
    ResourcePart,
    TextPart,
)

TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)
"""The one-pixel PNG the toolbox's ``picture`` answers."""


def test_structured_content_checked_by_the_output_schema_is_the_values_structured(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter([tool_calls(tool_call("weather", {"city": "Oslo"})), text("ok")])

    response = evaluate(adapter, prompt_of(section))

    (result,) = response.tool_results
    assert result.result.success
    assert result.result.value.structured == {"city": "Oslo", "celsius": 21.5}
    (message,) = tool_messages(adapter)
    assert '"city": "Oslo"' in message.content


def test_structured_content_that_breaks_its_output_schema_fails_and_the_run_goes_on(
    hostile: MCPConnection,
) -> None:
    section = MCPSection(hostile, title="Hostile", call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter(
        [
            tool_calls(tool_call("bad_output")),
            tool_calls(tool_call("echo", {"text": "after"})),
            text("done"),
        ]
    )

    response = evaluate(adapter, prompt_of(section))

    bad, good = response.tool_results
    assert not bad.result.success
    assert bad.result.value.code == "invalid_output"
    assert bad.result.message.startswith(
        "Invalid structured content returned by tool bad_output: 'seven' is not of type 'integer'"
    )
    assert good.result.success
    assert response.text == "done"


def test_an_image_is_a_binary_part_described_and_attached_for_the_model(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter([tool_calls(tool_call("picture")), text("a pixel")])

    response = evaluate(adapter, prompt_of(section))

    output = response.tool_results[0].result.value
    assert isinstance(output, MCPToolOutput)
    (part,) = output.parts
    assert isinstance(part, BinaryPart)
    assert (part.kind, part.media_type, part.data) == ("image", "image/png", TINY_PNG)
    (message,) = tool_messages(adapter)
    assert message.content == f"[image image/png, {len(TINY_PNG)} bytes]"
    assert message.attachments == (Image(data=TINY_PNG, media_type="image/png"),)


def test_embedded_documents_are_attached_and_other_parts_stay_text() -> None:
    pdf = base64.b64encode(b"%PDF-1.7 tiny").decode()
    output = MCPToolOutput(
        server="s",
        tool="t",
        parts=(
            ResourcePart("file:///reports/q3.pdf", "application/pdf", blob=pdf),
            ResourcePart("file:///a.csv", "text/csv", blob="YSxi"),
            BinaryPart("image", "image/svg+xml", "PHN2Zy8+"),
            BinaryPart("audio", "audio/wav", "UklGRg=="),
            TextPart("hello"),
        ),
    )
    assert output.attachments() == (
        Document(data=b"%PDF-1.7 tiny", media_type="application/pdf", name="q3.pdf"),
    )


def test_a_five_megabyte_text_reaches_the_model_cut_and_the_program_whole(
    toolbox: MCPConnection,
) -> None:
    size = 5_000_000
    section = MCPSection(
        toolbox, title="Toolbox", call_timeout=CALL_TIMEOUT, max_result_chars=2_000
    )
    adapter = ScriptedAdapter([tool_calls(tool_call("big_text", {"size": size})), text("long")])

    response = evaluate(adapter, prompt_of(section))

    result = response.tool_results[0].result
    assert result.success
    assert isinstance(result.value.parts[0], TextPart)
    whole = result.value.text
    assert len(whole) == size
    assert whole.startswith("HEAD.")
    assert whole.endswith(".TAIL")
    (message,) = tool_messages(adapter)
    sent = message.content
    assert sent == result.model_text()
    assert len(sent) <= 2_000
    assert sent.startswith("HEAD....")
    assert sent.endswith("....TAIL")
    assert "characters cut; the whole result is kept in the program's ToolResult" in sent
    head, tail = sent.split("\n[...", 1)[0], sent.rsplit("...]\n", 1)[1]
    assert len(head) > 2 * len(tail) * 0.9  # about two thirds head, one third tail
    assert len(head) + len(tail) > 1_800


def test_a_server_side_error_is_failed_with_its_text_and_its_value_kept(
    toolbox: MCPConnection,
) -> None:
    section = MCPSection(toolbox, title="Toolbox", call_timeout=CALL_TIMEOUT)
    adapter = ScriptedAdapter(
        [tool_calls(tool_call("fail", {"reason": "disk full"})), text("it failed")]
    )

    response = evaluate(adapter, prompt_of(section))

    result = response.tool_results[0].result
    assert not result.success
    assert result.message == "Error executing tool fail: it failed: disk full"
    assert result.value.is_error
    assert result.value.text == "Error executing tool fail: it failed: disk full"
    (message,) = tool_messages(adapter)
    assert message.is_error
    assert message.content == "Error executing tool fail: it failed: disk full"
