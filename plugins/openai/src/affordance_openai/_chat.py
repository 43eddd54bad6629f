"""Chat Completions (``POST /chat/completions``): a ``ModelRequest`` to a body, a body to a turn.

The instructions become the system message; an assistant turn is resent with its
``tool_calls``, then one ``tool`` message per call. Chat has no hosted tools in this adapter
(web search there is a request field, not a tool), so a hosted tool is refused before sending.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from affordance.runtime.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.turn import ModelRequest, ProviderTurn, Usage
from affordance_openai._declarations import DeclarationCache, OutputFormatCache
from affordance_openai._nulls import NullPlan, drop_nulls_in_json
from affordance_openai._wire import (
    TOOL_CHOICE_KEYWORDS,
    PreparedRequest,
    RequestSettings,
    UnusableResponseError,
    arguments_text,
    call_arguments,
    merge_extra_body,
    token_count,
    tool_choice_for_turn,
    tool_result_text,
)

__all__ = ["build_body", "chat_messages", "parse_body"]

_FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
}


def build_body(
    request: ModelRequest,
    settings: RequestSettings,
    declarations: DeclarationCache,
    output_formats: OutputFormatCache,
) -> PreparedRequest:
    messages: list[Mapping[str, Any]] = []
    if request.instructions is not None:
        messages.append({"role": "system", "content": request.instructions})
    messages.extend(chat_messages(request.messages))
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
    tool_nulls: dict[str, NullPlan] = {}
    if request.tools:
        tools = []
        for tool in request.tools:
            declaration = declarations.declaration(tool)
            tools.append(declaration.chat)
            if declaration.nulls is not None:
                tool_nulls[tool.name] = declaration.nulls
        body["tools"] = tools
        if settings.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = settings.parallel_tool_calls
        choice = tool_choice_for_turn(settings.tool_choice, request.turn)
        if isinstance(choice, str) and choice not in TOOL_CHOICE_KEYWORDS:
            choice = {"type": "function", "function": {"name": choice}}
        if choice is not None:
            body["tool_choice"] = choice
    output_nulls = None
    if request.output_schema is not None:
        output = output_formats.output_format(request.output_schema, request.output_name)
        body["response_format"] = output.chat
        output_nulls = output.nulls
    if settings.max_output_tokens is not None:
        body["max_completion_tokens"] = settings.max_output_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, tool_nulls, output_nulls, hosted=False)


def chat_messages(messages: Sequence[Message]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultMessage):
            content = tool_result_text(message)
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
            "function": {"name": call.name, "arguments": arguments_text(call)},
        }
        for call in message.tool_calls
    ]
    return {"role": "assistant", "content": message.text, "tool_calls": calls}


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
    calls = tuple(_tool_calls(message.get("tool_calls"), prepared.tool_nulls))
    reason = choice.get("finish_reason")
    if calls:
        finish = "tool_calls"
    elif refusal is not None:
        finish = "refusal"
    else:
        finish = _FINISH_REASONS.get(str(reason), str(reason)) if reason else "stop"
    if prepared.output_nulls is not None and text is not None and finish == "stop":
        text = drop_nulls_in_json(text, prepared.output_nulls)
    return ProviderTurn(
        text=text,
        tool_calls=calls,
        usage=_usage(data.get("usage")),
        finish_reason=finish,
        refusal=refusal,
        response_id=data.get("id") if isinstance(data.get("id"), str) else None,
    )


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as some compatible servers send
        texts = [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None


def _tool_calls(raw: Any, tool_nulls: Mapping[str, NullPlan]) -> list[ToolCall]:
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
        calls.append(ToolCall(call_id, name, call_arguments(arguments, name, tool_nulls)))
    return calls


def _usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(usage.get("prompt_tokens")),
        output_tokens=token_count(usage.get("completion_tokens")),
        cached_input_tokens=token_count(usage.get("prompt_tokens_details"), "cached_tokens"),
        reasoning_tokens=token_count(usage.get("completion_tokens_details"), "reasoning_tokens"),
    )
