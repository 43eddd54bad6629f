"""The request body of both OpenAI APIs: one skeleton (:func:`build_body`) and an :class:`ApiShape`
per API saying where each part goes (``specs/adapters/openai.md``, "Concept mapping").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from affordance.adapters import (
    AssistantMessage,
    Message,
    ModelRequest,
    PreparedRequest,
    ResentTurn,
    ToolCall,
    ToolResultMessage,
    Translate,
    UserMessage,
    arguments_text,
    merge_extra_body,
    wire_tool_choice,
)
from affordance_openai._attachments import chat_content, chat_result_attachments, responses_content
from affordance_openai._reply import ChatReply, ResponsesReply

if TYPE_CHECKING:
    from affordance.adapters import ProviderModel, WireModel
    from affordance.attachments import Attachment

__all__ = ["CHAT", "RESPONSES", "ApiShape", "build_body"]

_BUILT_ON_BOTH = frozenset(
    {"model", "tools", "parallel_tool_calls", "tool_choice", "temperature", "stream"}
)


@dataclass(frozen=True, slots=True)
class ApiShape:
    """Where one API puts each part of the request, and how its answer is read."""

    path: str
    transcript_key: str
    instructions_key: str | None  # None: the instructions open the transcript as system message
    content: Callable[[str, Sequence[Attachment]], list[Any]]  # a user message's parts
    tool_result: Callable[[ToolResultMessage, Any], Mapping[str, Any]]  # with serializer's text
    # the items after a turn's tool results that carry their attachments (Chat: a user message)
    results_attachments: Callable[[Sequence[ToolResultMessage]], Sequence[Mapping[str, Any]]]
    assistant: Callable[[AssistantMessage], list[Mapping[str, Any]]]  # the items resending a turn
    # a function declaration (or {"name": ...}, a forced choice) as the API's tool object
    function: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    output_key: str
    output_format: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    max_tokens_key: str
    hosted_in_tools: bool  # hosted declarations join ``tools``, else are merged into the body
    streamed: Mapping[str, Any]  # what a streamed request adds, unless extra_body set it
    reply: Callable[..., Translate]  # a fresh translator of one answer (``hosted=``)
    # every body field the adapter builds: a hosted tool's request extras may not set one
    built_fields: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        own = (self.transcript_key, self.instructions_key, self.output_key, self.max_tokens_key)
        built = _BUILT_ON_BOTH.union(self.streamed, (key for key in own if key is not None))
        object.__setattr__(self, "built_fields", built)


def build_body(
    model: WireModel[Any], request: ModelRequest, shape: ApiShape, *, stream: bool = False
) -> PreparedRequest:
    """The body of ``request`` on ``shape``'s API: hosted tools' request extras before the function
    tools, the caller's ``extra_body`` merged last (it may replace them, not ``stream``)."""
    settings, hosted = model.settings, model.hosted_request(request)
    resolved = model.resolution()  # the registry's snapshot, looked up once for the body
    transcript: list[Mapping[str, Any]] = []
    if shape.instructions_key is None and request.instructions is not None:
        transcript.append({"role": "system", "content": request.instructions})
    forms = resolved.wire_forms
    attached: list[ToolResultMessage] = []  # the turn's results with attachments, until it ends
    for message in request.messages:
        if isinstance(message, ToolResultMessage):
            if message.attachments:
                attached.append(message)
        elif attached:
            transcript.extend(shape.results_attachments(attached))
            attached = []
        transcript.extend(forms.of(message, _form, model, shape))
    if attached:
        transcript.extend(shape.results_attachments(attached))
    body: dict[str, Any] = {"model": settings.model, shape.transcript_key: transcript}
    if shape.instructions_key is not None and request.instructions is not None:
        body[shape.instructions_key] = request.instructions
    tools = [shape.function(resolved.declaration(tool).wire) for tool in request.tools]
    if shape.hosted_in_tools:
        tools.extend(hosted.declarations)
    else:
        for fields in hosted.declarations:
            body.update(fields)
    hosted.merge_into(body, built=shape.built_fields)
    if tools:
        body["tools"] = tools
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        choice = wire_tool_choice(request.tool_choice, lambda name: shape.function({"name": name}))
        if choice is not None:
            body["tool_choice"] = choice
    if request.output_schema is not None:
        formatted = resolved.output_format(request.output_schema, request.output_name)
        body[shape.output_key] = shape.output_format(formatted.wire)
    if settings.max_tokens is not None:
        body[shape.max_tokens_key] = settings.max_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    merge_extra_body(body, settings.extra_body)
    if stream:
        body["stream"] = True
        for key, value in shape.streamed.items():
            body.setdefault(key, value)
    return PreparedRequest(body, hosted=bool(hosted.declarations), headers=hosted.headers)


def _form(message: Message, model: ProviderModel, shape: ApiShape) -> tuple[Mapping[str, Any], ...]:
    """One message's transcript items (cached by the model's wire forms: read-only)."""
    if isinstance(message, ToolResultMessage):
        return (shape.tool_result(message, model.tool_result(message)),)
    if isinstance(message, UserMessage):
        attached = message.attachments
        content = shape.content(message.text, attached) if attached else message.text
        return ({"role": "user", "content": content},)
    return tuple(shape.assistant(message))


# -- where each API puts things ---------------------------------------------------------------

_ECHOED_TYPES = frozenset(
    {
        *("message", "function_call", "reasoning", "mcp_list_tools", "mcp_approval_request"),
        "mcp_approval_response",  # the caller's answer, added to the turn by the loop
    }
)


def _function_call(call: ToolCall) -> Mapping[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": arguments_text(call),
    }


_OUTPUT_ITEMS = ResentTurn(
    types=_ECHOED_TYPES,
    suffix="_call",  # hosted tools' calls: web_search_call, code_interpreter_call...
    text_type="message",
    call_type="function_call",
    call_id="call_id",
    text=lambda text: {"role": "assistant", "content": text},
    call=_function_call,
)
"""A Responses turn: its own output items in order, then what they lack (a turn from elsewhere)."""


def _function_output(message: ToolResultMessage, output: Any) -> Mapping[str, Any]:
    """A ``function_call_output``: the text, or with attachments a list of parts."""
    return {
        "type": "function_call_output",
        "call_id": message.call_id,
        "output": responses_content(output, message.attachments) if message.attachments else output,
    }


RESPONSES = ApiShape(
    path="/responses",
    transcript_key="input",
    instructions_key="instructions",
    content=responses_content,
    tool_result=_function_output,
    results_attachments=lambda results: (),  # a function_call_output holds its own
    assistant=_OUTPUT_ITEMS.items,
    function=lambda function: {"type": "function", **function},
    output_key="text",
    output_format=lambda output: {"format": {"type": "json_schema", **output}},
    max_tokens_key="max_output_tokens",
    hosted_in_tools=True,
    streamed={},  # a stream always brings the usage
    reply=ResponsesReply,
)


def _chat_message(message: AssistantMessage) -> list[Mapping[str, Any]]:
    """A Chat turn: its text and its ``tool_calls``."""
    if not message.tool_calls:
        return [{"role": "assistant", "content": message.text or ""}]
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_text(call)},
        }
        for call in message.tool_calls
    ]
    return [{"role": "assistant", "content": message.text, "tool_calls": calls}]


def _tool_message(message: ToolResultMessage, content: Any) -> Mapping[str, Any]:
    """A ``tool`` message: text only (no image; see :func:`chat_result_attachments`)."""
    return {"role": "tool", "tool_call_id": message.call_id, "content": content}


CHAT = ApiShape(
    path="/chat/completions",
    transcript_key="messages",
    instructions_key=None,
    content=chat_content,
    tool_result=_tool_message,
    results_attachments=chat_result_attachments,
    assistant=_chat_message,
    function=lambda function: {"type": "function", "function": function},
    output_key="response_format",
    output_format=lambda output: {"type": "json_schema", "json_schema": output},
    max_tokens_key="max_completion_tokens",
    hosted_in_tools=False,
    streamed={"stream_options": {"include_usage": True}},  # or no usage comes
    reply=ChatReply,
)
