"""OpenAI Responses API: the ``mcp`` tool entry, the calls read from ``output``, and the
approvals the API asks for.

Request (an entry of ``tools``; the SDK's ``tool_param.Mcp``)::

    {"type": "mcp", "server_label": "docs", "server_url": "https://...",
     "authorization": "<token>", "headers": {...}, "allowed_tools": ["search"],
     "require_approval": "always" | "never" | {"always": {"tool_names": [...]},
                                               "never": {"tool_names": [...]}},
     "server_description": "..."}

Response ``output`` items (``response_output_item``), each naming its ``server_label``:

- ``mcp_list_tools`` {id, server_label, tools: [{name, description, input_schema,
  annotations}], error} — the server's tools, listed once per conversation;
- ``mcp_call`` {id, server_label, name, arguments (a JSON string), output, error, status,
  approval_request_id} — ``error`` an object (``mcp_protocol_error`` / ``http_error`` {code,
  message}, ``mcp_tool_execution_error`` {content}) or, from older servers, a string;
- ``mcp_approval_request`` {id, server_label, name, arguments} — the call waits; the next
  request answers it with the input item ``mcp_approval_response`` {approval_request_id,
  approve, reason} (:meth:`OpenAIMCPCodec.approval_answer`).

No request extras: ``include`` has no MCP entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from affordance.tools import HostedApprovalRequest, HostedTool, ItemReader, Position
from affordance_mcp.hosted._reading import arguments_of, listed_tools, string, text_of
from affordance_mcp.hosted.config import ApprovalFilter, MCPServerConfig
from affordance_mcp.hosted.errors import config_of, refuse_unhonoured
from affordance_mcp.hosted.result import HostedMCPResult, MCPCallResult, MCPListedTool

__all__ = ["OpenAIMCPCodec"]


class OpenAIMCPCodec:
    """``mcp`` on OpenAI's Responses API (codec provider ``openai``)."""

    kind = "mcp"
    provider: ClassVar[str] = "openai"
    honours: ClassVar[Mapping[str, str]] = {
        "server_label": "`server_label`",
        "server_url": "`server_url`",
        "authorization": "`authorization`",
        "headers": "`headers`",
        "allowed_tools": "`allowed_tools`",
        "require_approval": "`require_approval` (`always`, `never`, `{always, never}` names)",
        "server_description": "`server_description`",
    }
    fills: ClassVar[Mapping[str, str]] = {
        "calls.server": "`mcp_call.server_label`",
        "calls.tool": "`mcp_call.name`",
        "calls.arguments": "`mcp_call.arguments` (JSON text, parsed)",
        "calls.output": "`mcp_call.output`",
        "calls.error": "`mcp_call.error` (its message, code or content), or a `failed` status",
        "calls.call_id": "`mcp_call.id`",
        "tools": "`mcp_list_tools.tools`",
    }
    notes: ClassVar[tuple[str, ...]] = (
        (
            "Calls wait for approval unless `require_approval` says `never` for them (the API's "
            "default is to ask): each `mcp_approval_request` is a pending confirmation, and the "
            "answer goes back as an `mcp_approval_response` item on the next request."
        ),
        (
            "A server's tools are listed once per conversation, and `tools` holds them only when "
            "the listing came in the same response as a call: not after an approval, nor in "
            "later turns (the `mcp_list_tools` item stays in the transcript's provider items)."
        ),
    )

    def serialize(self, tool: HostedTool[MCPServerConfig]) -> dict[str, Any]:
        config = refuse_unhonoured(tool, provider=self.provider, honours=self.honours)
        declared: dict[str, Any] = {
            "type": "mcp",
            "server_label": config.server_label,
            "server_url": config.server_url,
        }
        if config.authorization is not None:
            declared["authorization"] = config.authorization
        if config.headers:
            declared["headers"] = dict(config.headers)
        if config.allowed_tools is not None:
            declared["allowed_tools"] = list(config.allowed_tools)
        if config.require_approval is not None:
            declared["require_approval"] = _approval(config.require_approval)
        if config.server_description is not None:
            declared["server_description"] = config.server_description
        return declared

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[MCPServerConfig]
    ) -> HostedMCPResult | None:
        label = config_of(tool).server_label
        with ItemReader(tool, self.provider) as read:
            calls: list[MCPCallResult] = []
            listed: list[MCPListedTool] = []
            for index, item in read.objects(response_items, ("output",)):
                if item.get("server_label") != label:
                    continue
                kind = item.get("type")
                if kind == "mcp_call":
                    call = _call(item, label, read, ("output", index))
                    if call is not None:
                        calls.append(call)
                elif kind == "mcp_list_tools":
                    position = ("output", index, "tools")
                    listed.extend(listed_tools(item.get("tools"), label, read, position))
            return HostedMCPResult(tuple(calls), tuple(listed)) if calls else None

    def approval_requests(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[MCPServerConfig]
    ) -> list[HostedApprovalRequest]:
        """Each ``mcp_approval_request`` of this server; one without an id or a tool name
        cannot be answered and is skipped."""
        label = config_of(tool).server_label
        found: list[HostedApprovalRequest] = []
        with ItemReader(tool, self.provider) as read:
            for index, item in read.objects(response_items, ("output",)):
                if item.get("type") != "mcp_approval_request":
                    continue
                if item.get("server_label") != label:
                    continue
                request_id, name = string(item, "id"), string(item, "name")
                if request_id is None or name is None:
                    read.skip(("output", index), "no id" if request_id is None else "no name")
                    continue
                position = ("output", index, "arguments")
                arguments = arguments_of(item.get("arguments"), read, position)
                found.append(HostedApprovalRequest(request_id, name, arguments, item))
        return found

    def approval_answer(
        self,
        request: HostedApprovalRequest,
        approved: bool,
        message: str,
        tool: HostedTool[MCPServerConfig],
    ) -> dict[str, Any]:
        """The ``mcp_approval_response`` input item; a denial's message is its ``reason``."""
        answer: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": request.call_id,
            "approve": approved,
        }
        if message.strip():
            answer["reason"] = message
        return answer


def _approval(setting: str | ApprovalFilter) -> str | dict[str, Any]:
    if isinstance(setting, str):
        return setting
    wire: dict[str, Any] = {}
    if setting.always:
        wire["always"] = {"tool_names": list(setting.always)}
    if setting.never:
        wire["never"] = {"tool_names": list(setting.never)}
    return wire


def _call(
    item: Mapping[str, Any], server: str, read: ItemReader, position: Position
) -> MCPCallResult | None:
    """One ``mcp_call``; without a tool name it says nothing usable and is skipped."""
    name = string(item, "name")
    if name is None:
        read.skip(position, "no name")
        return None
    arguments = arguments_of(item.get("arguments"), read, (*position, "arguments"))
    return MCPCallResult(
        server=server,
        tool=name,
        arguments=arguments,
        output=read.text(item.get("output"), (*position, "output")),
        error=_error(item, read, position),
        call_id=string(item, "id"),
    )


def _error(item: Mapping[str, Any], read: ItemReader, position: Position) -> str | None:
    """What went wrong in a call: the error object's message (protocol and HTTP errors, with
    their code) or the tool's own error content; a ``failed`` call without one says so."""
    error = item.get("error")
    if isinstance(error, str):
        return error or None
    if isinstance(error, Mapping):
        kind = string(error, "type") or "error"
        if "content" in error:
            text = text_of(error.get("content"), read, (*position, "error", "content"))
            return text if text is not None else _as_json(error.get("content"))
        code, message = error.get("code"), string(error, "message")
        detail = " ".join(str(part) for part in (code, message) if part is not None)
        return f"{kind}: {detail}" if detail else kind
    if error is not None:
        read.skip((*position, "error"), "not an object or a string")
    status = item.get("status")
    return f"the call is {status}" if status in ("failed", "incomplete") else None


def _as_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "the tool reported an error"
