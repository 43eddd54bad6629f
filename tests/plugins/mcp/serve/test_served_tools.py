"""A prompt's tools as MCP tools, through the official ``mcp`` client connected in-process to
``server_for(prompt)``, in both protocol eras: what is served, how each tool is declared, and
what a call answers (``affordance_mcp.served_tools``)."""

from __future__ import annotations

import base64
from typing import Any

import mcp
import pytest
from mcp import types
from mcp_serve_board import Board, build_prompt
from mcp_serve_support import MODES, PROTOCOL_OF_MODE, run, text_of

from affordance import (
    AllowList,
    Document,
    Image,
    MarkdownSection,
    PromptTemplate,
    SectionVisibility,
    ToolExecutor,
    ToolResult,
    tool,
)
from affordance.serde import schema
from affordance.testing import ScriptedAdapter, text
from affordance_mcp.served_tools import declaration, fully_opened
from affordance_mcp.serving import server_for

SERVED = ["get_task", "add_task", "delete_task", "export_board", "ask_model", "board_stats"]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def listed(mode: str, **options: Any) -> dict[str, types.Tool]:
    found: dict[str, types.Tool] = {}

    async def test() -> None:
        async with mcp.Client(server_for(build_prompt(), **options), mode=mode) as client:
            assert client.protocol_version == PROTOCOL_OF_MODE[mode]
            found.update({tool.name: tool for tool in (await client.list_tools()).tools})

    run(test)
    return found


def called(
    mode: str, *calls: tuple[str, dict[str, Any]], board: Board | None = None, **options: Any
) -> list[types.CallToolResult]:
    results: list[types.CallToolResult] = []

    async def test() -> None:
        server = server_for(build_prompt(board), **options)
        async with mcp.Client(server, mode=mode) as client:
            for name, arguments in calls:
                results.append(await client.call_tool(name, arguments))

    run(test)
    return results


def test_every_enabled_tool_is_served_whatever_its_disclosure(mode: str) -> None:
    # board_stats is in a summarized section; secret_tool in a disabled one
    assert list(listed(mode)) == SERVED


def test_a_tools_input_schema_is_its_parameters_schema(mode: str) -> None:
    tools = {tool.name: tool for tool in build_prompt().tools()}

    for name, declared in listed(mode).items():
        assert declared.input_schema == tools[name].parameters_schema()
        assert declared.description == tools[name].description


def test_an_object_result_type_is_the_output_schema_and_any_other_declares_none(
    mode: str,
) -> None:
    declared = listed(mode)

    assert declared["get_task"].output_schema == schema(build_prompt().tools()[0].result_type)
    assert declared["board_stats"].output_schema is not None
    assert declared["delete_task"].output_schema is None  # a str result
    assert declared["export_board"].output_schema is None


class Summary:
    """A result with its own text form and no JSON Schema."""

    def render(self) -> str:
        return "all quiet"


def test_a_result_type_serde_cannot_describe_declares_no_output_schema() -> None:
    @tool
    def summarize() -> Summary:
        """Summarize the board."""
        return Summary()

    assert declaration(summarize).output_schema is None


@pytest.mark.parametrize(
    ("name", "read_only", "destructive", "idempotent", "title"),
    [
        ("get_task", True, False, True, "Get task"),  # cached: read-only and idempotent
        ("add_task", False, False, False, "Add task"),
        ("delete_task", False, True, False, "Delete task"),
    ],
)
def test_annotations_follow_the_tools_flags(
    mode: str, name: str, read_only: bool, destructive: bool, idempotent: bool, title: str
) -> None:
    annotations = listed(mode)[name].annotations

    assert annotations == types.ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
    )


def test_a_call_answers_what_the_model_would_read_and_the_value_as_structured_content(
    mode: str,
) -> None:
    (result,) = called(mode, ("add_task", {"title": "Call the bank", "priority": "high"}))

    assert not result.is_error
    assert text_of(result) == '{"task_id":3,"title":"Call the bank","priority":"high"}'
    assert result.structured_content == {"task_id": 3, "title": "Call the bank", "priority": "high"}


def test_a_result_without_an_output_schema_is_text_only(mode: str) -> None:
    (result,) = called(mode, ("ask_model", {"question": "?"}), adapter=ScriptedAdapter([text("A")]))

    assert text_of(result) == "A"
    assert result.structured_content is None


def test_a_cached_tool_answers_a_repeated_call_from_the_executors_cache(mode: str) -> None:
    board = Board()

    first, second = called(
        mode, ("get_task", {"task_id": 2}), ("get_task", {"task_id": 2}), board=board
    )

    assert first.structured_content == second.structured_content
    assert board.lookups == 1


def test_invalid_arguments_come_back_as_an_error_result_the_model_can_read(mode: str) -> None:
    (result,) = called(mode, ("get_task", {"task_id": "seven"}))

    assert result.is_error
    assert text_of(result) == (
        "Invalid arguments for 'get_task': 1 validation error for GetTaskParams:\n"
        "  task_id: expected an integer, got 'seven' (str)"
    )
    assert result.structured_content is None


def test_a_failing_tool_is_an_error_result_naming_the_failure(mode: str) -> None:
    (result,) = called(mode, ("export_board", {"fmt": "csv"}))

    assert result.is_error
    assert text_of(result) == "Tool 'export_board' failed: RuntimeError: the exporter is down"


def test_a_tool_error_reaches_the_client_with_its_code(mode: str) -> None:
    (result,) = called(mode, ("get_task", {"task_id": 99}))

    assert result.is_error
    assert "there is no task #99" in text_of(result)
    assert '"code":"TASK_NOT_FOUND"' in text_of(result)


def test_an_unknown_tool_is_a_protocol_error_listing_the_served_tools(mode: str) -> None:
    errors: list[mcp.MCPError] = []

    async def test() -> None:
        async with mcp.Client(server_for(build_prompt()), mode=mode) as client:
            with pytest.raises(mcp.MCPError) as raised:
                await client.call_tool("drop_board", {})
            errors.append(raised.value)

    run(test)
    (error,) = errors
    assert error.code == types.INVALID_PARAMS
    assert error.message == (
        "Unknown tool 'drop_board'. Available tools: add_task, ask_model, board_stats, "
        "delete_task, export_board, get_task."
    )


def test_calls_run_through_the_executor_given(mode: str) -> None:
    executor = ToolExecutor(policy=AllowList(["get_task"]))

    (result,) = called(mode, ("add_task", {"title": "x"}), executor=executor)

    assert result.is_error
    assert text_of(result).startswith("Tool 'add_task' may not run")


def test_without_an_adapter_a_tool_evaluating_a_prompt_is_told_why_it_cannot(mode: str) -> None:
    (result,) = called(mode, ("ask_model", {"question": "How many tasks?"}))

    assert result.is_error
    assert text_of(result) == (
        "Tool 'ask_model' failed: NoModelError: cannot evaluate prompt 'question': this MCP "
        "server has no model; start it with serve(..., adapter=...) to let its tools evaluate "
        "prompts"
    )


def test_the_server_is_named_after_the_prompt_unless_given_a_name(mode: str) -> None:
    names = []

    async def test() -> None:
        for server in (server_for(build_prompt()), server_for(build_prompt(), name="tasks")):
            async with mcp.Client(server, mode=mode) as client:
                assert client.server_info is not None
                names.append(client.server_info.name)

    run(test)
    assert names == ["task-board", "tasks"]


def test_summarized_sections_are_opened_down_to_the_innermost() -> None:
    inner = MarkdownSection(
        title="Inner",
        template="Inner.",
        summary="In short.",
        visibility=SectionVisibility.SUMMARY,
        tools=[build_prompt().tools()[0]],
    )
    outer = MarkdownSection(
        title="Outer",
        template="Outer.",
        summary="Briefly.",
        visibility=SectionVisibility.SUMMARY,
        children=[inner],
    )
    prompt = PromptTemplate(name="nested", sections=[outer])

    rendered = fully_opened(prompt, ())

    assert [tool.name for tool in rendered.tools] == ["get_task"]
    assert rendered.summarized == ()


def test_a_results_images_and_documents_are_served_as_image_and_resource_blocks(
    mode: str,
) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8

    @tool
    def chart() -> ToolResult[str]:
        """Draw the chart."""
        return ToolResult.ok(
            "drawn",
            attachments=(
                Image(data=png),
                Document(data=b"%PDF-1.7 x", name="report.pdf"),
                Image(url="https://example.com/c.png"),
            ),
        )

    prompt = PromptTemplate(
        key="charts", sections=[MarkdownSection(title="Charts", template="Draw.", tools=[chart])]
    )
    results: list[types.CallToolResult] = []

    async def test() -> None:
        async with mcp.Client(server_for(prompt), mode=mode) as client:
            results.append(await client.call_tool("chart", {}))

    run(test)
    (result,) = results
    text_block, image, document, link = result.content
    assert isinstance(text_block, types.TextContent)
    assert text_block.text == "drawn"
    assert isinstance(image, types.ImageContent)
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", png)
    assert isinstance(document, types.EmbeddedResource)
    assert isinstance(document.resource, types.BlobResourceContents)
    assert str(document.resource.uri) == "attachment:///report.pdf"
    assert base64.b64decode(document.resource.blob) == b"%PDF-1.7 x"
    assert isinstance(link, types.ResourceLink)
    assert str(link.uri) == "https://example.com/c.png"
