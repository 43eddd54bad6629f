"""The Messages request body (``POST /v1/messages``) for a ``ModelRequest``.

The instructions become ``system``; the transcript becomes alternating ``user`` and
``assistant`` messages: consecutive messages of one role are merged (the API wants roles to
alternate, and a paused turn is continued by sending its content back), tool results open the
next user message as ``tool_result`` blocks, and an assistant turn is resent with its own content
blocks unchanged (text with citations, thinking with signatures, tool and server-tool blocks).
Images and documents (:mod:`._attachments`) add ``image`` / ``document`` blocks: before a user
message's text, after a tool result's text in its ``content``; a message without them is sent
exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from affordance.adapters import (
    Message,
    ModelRequest,
    PreparedRequest,
    ResentTurn,
    RunForm,
    StrictBudget,
    ToolChoice,
    ToolResultMessage,
    UserMessage,
    arguments_json,
    joined_transcript,
    merge_extra_body,
    wire_tool_choice,
    within_strict_budget,
)
from affordance_anthropic._attachments import user_blocks, with_attachments

if TYPE_CHECKING:
    from affordance.adapters import ProviderModel, ToolDeclaration, WireModel
    from affordance.tools import Tool

__all__ = ["STRICT_BUDGET", "build_body", "continued_blocks"]

_BUILT_FIELDS = frozenset(
    {"model", "max_tokens", "messages", "system", "tools", "tool_choice", "temperature", "stream"}
)
"""The body fields the adapter builds: a hosted tool's codec may add others, never these."""

_CHOICES: Mapping[str, Mapping[str, Any]] = {
    "auto": {"type": "auto"},
    "none": {"type": "none"},
    "required": {"type": "any"},
}
_BLOCK_TYPES = frozenset(
    {
        "text",
        "tool_use",
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "mcp_tool_use",
        "mcp_tool_listing",  # the MCP connector's listing of a server: resent, not asked again
        "container_upload",
    }
)


_ASSISTANT_BLOCKS = ResentTurn(
    types=_BLOCK_TYPES,
    suffix="_tool_result",  # hosted tools' results: web_search_tool_result...
    text_type="text",
    call_type="tool_use",
    call_id="id",
    text=lambda text: {"type": "text", "text": text},
    call=lambda call: {
        "type": "tool_use",
        "id": call.id,
        "name": call.name,
        "input": arguments_json(call),
    },
    text_first=True,
)
"""A turn's own content blocks, unchanged and in order, then whatever they lack (a turn
recorded by another provider, or built by hand, has no Anthropic blocks)."""

STRICT_BUDGET = StrictBudget(tools=20, optional=24, unions=16, schema_field="input_schema")
"""What one request may spend on strict tools (*docs*: more is refused with a 400); a strict
declaration that would overspend it is sent without ``strict`` rather than refused."""


def build_body(model: WireModel[Any], request: ModelRequest) -> PreparedRequest:
    """The Messages body of ``request``. The hosted tools' request extras (the MCP connector's
    ``mcp_servers``) go in after the adapter's own fields, before ``extra_body``; the headers
    they ask for (its ``anthropic-beta``) are sent with it."""
    settings, hosted = model.settings, model.hosted_request(request)
    resolved = model.resolution()  # the registry's snapshot, looked up once for the body
    body: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": settings.max_tokens,
        # each message's blocks, and its entry alone, built once; a run of one role joined
        "messages": joined_transcript(
            request.messages, resolved.wire_forms, partial(_form, model=model), _entry
        ),
    }
    system = request.instructions
    tools = [*resolved.tool_sets.of(request.tools, _declared_tools, resolved.declaration)]
    tools.extend(hosted.declarations)
    if tools:
        body["tools"] = tools
        choice = tool_choice(request.tool_choice, request.parallel_tool_calls)
        if choice is not None:
            body["tool_choice"] = choice
    if request.output_schema is not None:
        formatted = resolved.output_format(request.output_schema, request.output_name).wire
        for key, value in formatted.items():
            if key == "system" and isinstance(value, str):
                system = value if system is None else f"{system}\n\n{value}"
            else:
                merge_extra_body(body, {key: value})
    if system is not None:
        body["system"] = system
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    hosted.merge_into(body, built=_BUILT_FIELDS)
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, hosted=bool(hosted.declarations), headers=hosted.headers)


def _declared_tools(
    tools: Sequence[Tool[Any, Any]], declare: Callable[[Tool[Any, Any]], ToolDeclaration]
) -> tuple[Mapping[str, Any], ...]:
    """The declarations of a request's tools, each strict one kept strict while the request's
    budget lasts: the same for every request sending these tools, so kept per tool set."""
    return tuple(within_strict_budget([declare(tool).wire for tool in tools], STRICT_BUDGET))


def continued_blocks(prepared: PreparedRequest) -> tuple[Mapping[str, Any], ...]:
    """The blocks of the paused turn a request with hosted tools continues (the transcript's
    trailing assistant content; none without hosted tools): the answer carries on the same
    assistant turn, so a codec reads them together with the answer's own blocks."""
    sent = prepared.body["messages"]
    if not prepared.hosted or not sent or sent[-1]["role"] != "assistant":
        return ()
    content = sent[-1]["content"]
    return tuple(content) if isinstance(content, list) else ({"type": "text", "text": content},)


def tool_choice(choice: ToolChoice | None, parallel: bool | None) -> Mapping[str, Any] | None:
    """``auto``/``none``/``required``/a tool name as Anthropic's ``tool_choice`` object; a
    mapping is the caller's wire value, sent as is. ``parallel=False`` adds
    ``disable_parallel_tool_use`` (to ``auto`` when no choice was given; ``none`` takes none)."""
    if choice is None and parallel is False:
        choice = "auto"
    if not isinstance(choice, str):
        return choice  # none, or the caller's own mapping
    wire = dict(wire_tool_choice(choice, lambda name: {"type": "tool", "name": name}, _CHOICES))
    if parallel is False and wire["type"] != "none":
        wire["disable_parallel_tool_use"] = True
    return wire


# -- the transcript ----------------------------------------------------------------------------


def _form(message: Message, model: ProviderModel) -> RunForm[Mapping[str, Any], dict[str, Any]]:
    """A message's blocks, and its entry when no message of its role is beside it."""
    if isinstance(message, UserMessage):
        role = "user"
        if message.attachments:
            blocks: Sequence[Mapping[str, Any]] = user_blocks(message.text, message.attachments)
        else:
            blocks = [{"type": "text", "text": message.text}] if message.text else []
    elif isinstance(message, ToolResultMessage):
        role = "user"
        block = model.tool_result(message)
        if message.attachments and isinstance(block, Mapping):
            block = with_attachments(block, message.attachments)
        blocks = [block]
    else:
        role, blocks = "assistant", _ASSISTANT_BLOCKS.items(message)
    return RunForm(role, tuple(blocks), _entry(role, list(blocks)))


def _entry(role: str, content: list[Any]) -> dict[str, Any]:
    """One Messages entry: a user entry's tool results first, as the API requires; a lone plain
    text in the short form."""
    if len(content) > 1 and role == "user":
        content.sort(key=lambda block: block.get("type") != "tool_result")
    if len(content) == 1 and content[0].get("type") == "text" and len(content[0]) == 2:
        return {"role": role, "content": content[0]["text"]}
    return {"role": role, "content": content}
