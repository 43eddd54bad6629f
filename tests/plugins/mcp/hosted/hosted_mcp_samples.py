"""Wire samples of provider-hosted MCP, written from the installed SDKs' types (openai
``responses.response_output_item.McpCall``/``McpListTools``/``McpApprovalRequest``; anthropic
``beta.BetaMCPToolUseBlock``/``BetaMCPToolResultBlock``/``BetaMCPToolListingBlock``), and the
loopback replies that carry them.

One scene on both providers: the model searches the ``docs`` server for the refund policy and
answers from what the tool returned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from loopback import (
    JsonReply,
    SseEvent,
    SseReply,
    message,
    message_item,
    message_stream_events,
    output_text_part,
    response,
    responses_stream,
    text_block,
)

from affordance import MarkdownSection, PromptTemplate
from affordance_mcp.hosted import (
    HostedMCPResult,
    HostedMCPSection,
    MCPCallResult,
    MCPListedTool,
    MCPServerConfig,
)

LABEL = "docs"
URL = "https://mcp.example.com/docs"
ANSWER = "Refunds are accepted within 30 days."
OUTPUT = "Refund policy: within 30 days of purchase."
ARGUMENTS = {"query": "refund policy"}
SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}}

CONFIG = MCPServerConfig(server_label=LABEL, server_url=URL)

EXPECTED = HostedMCPResult(
    calls=(MCPCallResult(LABEL, "search", ARGUMENTS, output=OUTPUT, call_id="mcp_call_1"),),
    tools=(MCPListedTool(LABEL, "search", "Search the docs", SEARCH_SCHEMA),),
)
"""What both providers' samples read as (the call id is each sample's own)."""


def prompt(
    config: MCPServerConfig = CONFIG, *, name: str | None = None, key: str | None = None
) -> PromptTemplate[Any]:
    task = MarkdownSection(title="Task", template="What is the refund policy?")
    return PromptTemplate(
        ns="tests", key="refunds", sections=[task, HostedMCPSection(config, name=name, key=key)]
    )


# -- OpenAI Responses ------------------------------------------------------------------------


def openai_list_tools(label: str = LABEL) -> dict[str, Any]:
    return {
        "type": "mcp_list_tools",
        "id": f"mcpl_{label}",
        "server_label": label,
        "tools": [
            {
                "name": "search",
                "description": "Search the docs",
                "input_schema": SEARCH_SCHEMA,
                "annotations": None,
            }
        ],
        "error": None,
    }


def openai_call(
    call_id: str = "mcp_call_1",
    *,
    label: str = LABEL,
    name: str = "search",
    arguments: Any = None,
    output: Any = OUTPUT,
    error: Any = None,
    status: str = "completed",
) -> dict[str, Any]:
    return {
        "type": "mcp_call",
        "id": call_id,
        "server_label": label,
        "name": name,
        "arguments": json.dumps(ARGUMENTS) if arguments is None else arguments,
        "output": output,
        "error": error,
        "status": status,
        "approval_request_id": None,
    }


def openai_approval_request(
    request_id: str = "mcpr_1", *, label: str = LABEL, arguments: Any = None
) -> dict[str, Any]:
    return {
        "type": "mcp_approval_request",
        "id": request_id,
        "server_label": label,
        "name": "search",
        "arguments": json.dumps(ARGUMENTS) if arguments is None else arguments,
    }


def openai_answer(text: str = ANSWER) -> dict[str, Any]:
    return message_item(output_text_part(text))


def openai_body(*items: Mapping[str, Any]) -> dict[str, Any]:
    """A whole Responses body; without items, the scene: listing, call, answer."""
    chosen = items or (openai_list_tools(), openai_call(), openai_answer())
    reply: JsonReply = response(list(chosen))
    return dict(reply.body)


# -- Anthropic Messages ----------------------------------------------------------------------


def anthropic_use(
    use_id: str = "mcp_call_1", *, label: str = LABEL, name: str = "search", input: Any = None
) -> dict[str, Any]:
    return {
        "type": "mcp_tool_use",
        "id": use_id,
        "name": name,
        "server_name": label,
        "input": dict(ARGUMENTS) if input is None else input,
    }


def anthropic_result(
    use_id: str = "mcp_call_1", *, content: Any = None, is_error: Any = False
) -> dict[str, Any]:
    return {
        "type": "mcp_tool_result",
        "tool_use_id": use_id,
        "is_error": is_error,
        "content": [{"type": "text", "text": OUTPUT}] if content is None else content,
    }


def anthropic_listing(label: str = LABEL) -> dict[str, Any]:
    return {
        "type": "mcp_tool_listing",
        "mcp_server_name": label,
        "tools": [
            {"name": "search", "description": "Search the docs", "input_schema": SEARCH_SCHEMA}
        ],
    }


def anthropic_body(*blocks: Mapping[str, Any]) -> dict[str, Any]:
    """A whole Messages body; without blocks, the scene: listing, use, result, answer."""
    chosen = blocks or (
        anthropic_listing(),
        anthropic_use(),
        anthropic_result(),
        text_block(ANSWER),
    )
    reply: JsonReply = message(list(chosen))
    return dict(reply.body)


def anthropic_stream(body: Mapping[str, Any], *, json_chunk: int = 7) -> SseReply:
    """The event stream of ``body`` as the API sends it: an ``mcp_tool_use`` block starts with
    an empty input that arrives in ``input_json_delta`` pieces, like a ``tool_use`` block."""
    return SseReply(tuple(_with_streamed_inputs(message_stream_events(body), json_chunk)))


def _with_streamed_inputs(events: Sequence[SseEvent], size: int) -> Iterator[SseEvent]:
    for event in events:
        data = event.data
        block = data.get("content_block") if isinstance(data, dict) else None
        if not (isinstance(block, dict) and block.get("type") == "mcp_tool_use"):
            yield event
            continue
        text = json.dumps(block["input"])
        index = data["index"]
        started = {**data, "content_block": {**block, "input": {}}}
        yield SseEvent(started, event=event.event)
        for start in range(0, len(text), size):
            delta = {"type": "input_json_delta", "partial_json": text[start : start + size]}
            piece = {"type": "content_block_delta", "index": index, "delta": delta}
            yield SseEvent(piece, event="content_block_delta")


def openai_stream(body: Mapping[str, Any]) -> SseReply:
    return responses_stream(JsonReply(dict(body)))
