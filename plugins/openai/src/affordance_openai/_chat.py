"""Chat Completions (``POST /chat/completions``): a ``ModelRequest`` to a body, a body to a turn.

The instructions become the system message; an assistant turn is resent with its
``tool_calls``, then one ``tool`` message per call. Hosted tools are request fields here (web
search on search models is ``web_search_options``): their codecs, registered for provider
``openai-chat``, return fields merged into the body, and read the answer from one ``message``
item (:func:`hosted_item`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from affordance.adapters import (
    AssistantMessage,
    ModelRequest,
    PreparedRequest,
    ProviderTurn,
    ToolCall,
    ToolResultMessage,
    UnusableResponseError,
    UsageFields,
    UserMessage,
)
from affordance.adapters import arguments_text as echoed_arguments
from affordance_openai._body import ApiShape, arguments_text

if TYPE_CHECKING:
    from affordance.adapters import ProviderAdapter

__all__ = ["CHAT", "chat_messages", "finish_reason", "hosted_item", "parse_body", "usage_of"]

_FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
}


def chat_messages(adapter: ProviderAdapter, request: ModelRequest) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    if request.instructions is not None:  # Chat has no instructions field: a system message
        out.append({"role": "system", "content": request.instructions})
    for message in request.messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultMessage):
            content = adapter.tool_result(message)
            out.append({"role": "tool", "tool_call_id": message.call_id, "content": content})
        else:
            out.append(_assistant_message(message))
    return out


def _assistant_message(message: AssistantMessage) -> Mapping[str, Any]:
    if not message.tool_calls:
        return {"role": "assistant", "content": message.text or ""}
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": echoed_arguments(call)},
        }
        for call in message.tool_calls
    ]
    return {"role": "assistant", "content": message.text, "tool_calls": calls}


CHAT = ApiShape(
    transcript_key="messages",
    instructions_key=None,
    transcript=chat_messages,
    function=lambda function: {"type": "function", "function": function},
    named_choice=lambda name: {"type": "function", "function": {"name": name}},
    output_key="response_format",
    output_format=lambda output: {"type": "json_schema", "json_schema": output},
    max_tokens_key="max_completion_tokens",
    hosted_in_tools=False,
)


def parse_body(data: Any, prepared: PreparedRequest) -> ProviderTurn:
    if not isinstance(data, dict):
        raise UnusableResponseError(f"expected a JSON object, got {type(data).__name__}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise UnusableResponseError("the completion has no choices")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise UnusableResponseError("the first choice has no message")
    text = _text(message.get("content"))
    refusal = message.get("refusal") if isinstance(message.get("refusal"), str) else None
    calls = tuple(_tool_calls(message.get("tool_calls")))
    hosted = (hosted_item(text, message.get("annotations")),) if prepared.hosted else ()
    return ProviderTurn(
        text=text,
        tool_calls=calls,
        hosted_items=hosted,
        usage=usage_of(data.get("usage")),
        finish_reason=finish_reason(choice.get("finish_reason"), bool(calls), refusal is not None),
        refusal=refusal,
        response_id=data.get("id") if isinstance(data.get("id"), str) else None,
    )


def hosted_item(text: str | None, annotations: Any) -> dict[str, Any]:
    """What Chat's hosted-tool codecs read (web search on search models): the answer text and
    its ``annotations`` (``url_citation`` entries), as one ``message`` item, built the same way
    from a plain completion and from a stream. ``annotations`` that are no list are passed on
    as they came, for the codec to skip with its warning."""
    return {
        "type": "message",
        "content": text or "",
        "annotations": list(annotations) if isinstance(annotations, list) else annotations,
    }


def finish_reason(reason: Any, has_calls: bool, has_refusal: bool) -> str:
    """The normalized finish reason (a call or a refusal decides, whatever the field says)."""
    if has_calls:
        return "tool_calls"
    if has_refusal:
        return "refusal"
    return _FINISH_REASONS.get(str(reason), str(reason)) if reason else "stop"


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as some compatible servers send
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None


def _tool_calls(raw: Any) -> list[ToolCall]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise UnusableResponseError("message.tool_calls is not a list")
    calls: list[ToolCall] = []
    for entry in raw:
        if not isinstance(entry, dict):
            raise UnusableResponseError("a tool call is not an object")
        if entry.get("type", "function") != "function":
            continue  # custom (grammar) tools are never declared by this adapter
        function = entry.get("function")
        call_id = entry.get("id")
        if not isinstance(function, dict) or not isinstance(call_id, str):
            raise UnusableResponseError("a tool call lacks its id or function")
        name, arguments = function.get("name"), function.get("arguments")
        if not isinstance(name, str):
            raise UnusableResponseError("a tool call lacks its function name")
        calls.append(ToolCall(call_id, name, arguments_text(arguments)))
    return calls


usage_of = UsageFields(
    input=("prompt_tokens",),
    output=("completion_tokens",),
    cached=("prompt_tokens_details.cached_tokens",),
    reasoning=("completion_tokens_details.reasoning_tokens",),
).read
