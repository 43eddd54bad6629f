"""The Responses API (``POST /responses``): a ``ModelRequest`` to a body, a body to a turn.

Operation is stateless: every request resends the whole transcript as ``input`` items and never
uses ``previous_response_id``. The model's output items (reasoning, hosted-tool calls, messages,
function calls) are kept verbatim as the turn's ``provider_items`` and echoed back in order, as
OpenAI asks for reasoning models.
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

__all__ = ["RESPONSES", "failure", "finish_reason", "input_items", "parse_body", "usage_of"]

_INCOMPLETE_REASONS = {"max_output_tokens": "length", "content_filter": "content_filter"}
_ECHOED_TYPES = frozenset({"message", "function_call", "reasoning", "mcp_list_tools"})


def input_items(adapter: ProviderAdapter, request: ModelRequest) -> list[Mapping[str, Any]]:
    items: list[Mapping[str, Any]] = []
    for message in request.messages:
        if isinstance(message, UserMessage):
            items.append({"role": "user", "content": message.text})
        elif isinstance(message, ToolResultMessage):
            output = adapter.tool_result(message)
            items.append(
                {"type": "function_call_output", "call_id": message.call_id, "output": output}
            )
        else:
            items.extend(_assistant_items(message))
    return items


def _assistant_items(message: AssistantMessage) -> list[Mapping[str, Any]]:
    """The turn's own output items, in order, then whatever they lack (a turn recorded by
    another provider or built by hand has no Responses items)."""
    items = [item for item in message.provider_items if _is_output_item(item)]
    has_message = any(item["type"] == "message" for item in items)
    echoed_calls = {item.get("call_id") for item in items if item["type"] == "function_call"}
    if message.text and not has_message:
        items.append({"role": "assistant", "content": message.text})
    items.extend(_function_call(call) for call in message.tool_calls if call.id not in echoed_calls)
    return items


RESPONSES = ApiShape(
    transcript_key="input",
    instructions_key="instructions",
    transcript=input_items,
    function=lambda function: {"type": "function", **function},
    named_choice=lambda name: {"type": "function", "name": name},
    output_key="text",
    output_format=lambda output: {"format": {"type": "json_schema", **output}},
    max_tokens_key="max_output_tokens",
    hosted_in_tools=True,
)


def _is_output_item(item: Mapping[str, Any]) -> bool:
    kind = item.get("type")
    return isinstance(kind, str) and (kind in _ECHOED_TYPES or kind.endswith("_call"))


def _function_call(call: ToolCall) -> Mapping[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": echoed_arguments(call),
    }


def parse_body(data: Any, prepared: PreparedRequest) -> ProviderTurn:
    if not isinstance(data, dict):
        raise UnusableResponseError(f"expected a JSON object, got {type(data).__name__}")
    status = data.get("status")
    if status == "failed":
        raise UnusableResponseError(failure(data))
    if status not in ("completed", "incomplete", None):
        raise UnusableResponseError(f"the response is {status!r}, not completed")
    output = data.get("output")
    if not isinstance(output, list):
        raise UnusableResponseError("the response has no output list")
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    for item in output:
        if not isinstance(item, dict):
            raise UnusableResponseError("an output item is not an object")
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            if content is not None and not isinstance(content, list):
                raise UnusableResponseError("a message's content is not a list")
            for part in content or ():
                if not isinstance(part, dict):
                    raise UnusableResponseError("a message part is not an object")
                if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                    refusals.append(part["refusal"])
        elif kind == "function_call":
            calls.append(_tool_call(item))
    text = "".join(texts) if texts else None
    refusal = "".join(refusals) if refusals else None
    items = tuple(output)
    return ProviderTurn(
        text=text,
        tool_calls=tuple(calls),
        hosted_items=items if prepared.hosted else (),
        provider_items=items,
        usage=usage_of(data.get("usage")),
        finish_reason=finish_reason(data, bool(calls), refusal is not None),
        refusal=refusal,
        response_id=data.get("id") if isinstance(data.get("id"), str) else None,
    )


def failure(data: Mapping[str, Any]) -> str:
    """What a failed response says about its failure."""
    error = data.get("error") or {}
    if isinstance(error, dict):
        return f"the response failed: {error.get('code')}: {error.get('message')}"
    return "the response failed"


def finish_reason(data: Mapping[str, Any], has_calls: bool, has_refusal: bool) -> str:
    """The normalized finish reason of a (completed or incomplete) response object."""
    if has_calls:
        return "tool_calls"
    if data.get("status") == "incomplete":
        details = data.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return _INCOMPLETE_REASONS.get(str(reason), str(reason or "incomplete"))
    return "refusal" if has_refusal else "stop"


def _tool_call(item: Mapping[str, Any]) -> ToolCall:
    call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise UnusableResponseError("a function_call item lacks call_id or name")
    return ToolCall(call_id, name, arguments_text(arguments))


usage_of = UsageFields(
    input=("input_tokens",),
    output=("output_tokens",),
    cached=("input_tokens_details.cached_tokens",),
    reasoning=("output_tokens_details.reasoning_tokens",),
).read
