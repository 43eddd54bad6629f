"""Tool results and responses across the boundary, rebuilt typed where the types are known.

A handler's value is dumped by the worker with its rendered text (what the model reads). The
other side parses it back into the tool's ``result_type`` (or the executor's
``ToolErrorInfo``, or ``OpenSectionsResult``) and keeps it only if it renders to the same
text; otherwise it keeps the data in an :class:`OpaqueValue` that renders as the worker did.
So the transcript of a durable run reads exactly as the worker's results rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from affordance import OpenSectionsResult, PromptResponse, Session, Tool, ToolResult
from affordance.runtime import ToolCallResult, ToolErrorInfo
from affordance.serde import ParseError, dump, parse
from affordance.tools import render_value
from affordance_temporal.boundary import (
    CallData,
    ResultData,
    ResultKind,
    RunResult,
)
from affordance_temporal.prompt_refs import decode_overrides, encode_overrides
from affordance_temporal.registry import PromptRegistry

__all__ = [
    "OpaqueValue",
    "decode_calls",
    "decode_response",
    "decode_result",
    "encode_calls",
    "encode_response",
    "encode_result",
    "params_of",
]

NoneType = type(None)


@dataclass(frozen=True, slots=True)
class OpaqueValue:
    """A result value whose type could not be rebuilt here: its data, rendered as the worker
    rendered it."""

    data: Any
    rendered: str

    def render(self) -> str:
        return self.rendered


def encode_result(result: ToolResult[Any]) -> ResultData:
    value = result.value
    if value is None:
        return ResultData(result.message, result.success, result.exclude_value_from_context)
    rendered = result.render()
    kind: ResultKind
    if isinstance(value, OpaqueValue):
        kind, data = "opaque", value.data
    elif isinstance(value, ToolErrorInfo):
        kind, data = "error_info", dump(value)
    elif isinstance(value, OpenSectionsResult):
        # its dict is keyed by section paths (tuples), which JSON cannot key by
        kind, data = "open_sections", [[list(p), v] for p, v in value.requested_overrides.items()]
    else:
        kind, data = "typed", _dumped(value)
    return ResultData(
        result.message,
        result.success,
        result.exclude_value_from_context,
        kind,
        data,
        rendered,
    )


def decode_result(data: ResultData, tool: Tool[Any, Any] | None) -> ToolResult[Any]:
    """The result, its value typed where ``tool`` (or the kind) says how and the text agrees."""
    value: Any = None
    if data.kind != "none":
        value = _typed(data, tool)
        if value is None or render_value(value) != data.rendered:
            value = OpaqueValue(data.value, data.rendered)
    return ToolResult(
        message=data.message,
        value=value,
        success=data.success,
        exclude_value_from_context=data.exclude_value_from_context,
    )


def _typed(data: ResultData, tool: Tool[Any, Any] | None) -> Any:
    try:
        if data.kind == "error_info":
            return parse(ToolErrorInfo, data.value)
        if data.kind == "open_sections":
            return OpenSectionsResult({tuple(path): str(vis) for path, vis in data.value})
        result_type = None if tool is None else tool.result_type
        if data.kind == "typed" and result_type is not None and result_type is not NoneType:
            return parse(result_type, data.value)
    except (ParseError, TypeError, ValueError):
        return None
    return None


def _dumped(value: Any) -> Any:
    try:
        return dump(value)
    except (TypeError, ValueError):
        return None  # not JSON data: only its rendered text crosses


# -- responses --------------------------------------------------------------------------------


def encode_response(prompt: str, response: PromptResponse[Any]) -> RunResult:
    """A finished run's response as the workflow's result."""
    return RunResult(
        prompt=prompt,
        prompt_name=response.prompt_name,
        run_id=response.run_id,
        output=None if response.output is None else dump(response.output),
        text=response.text,
        tool_results=encode_calls(response.tool_results),
        hosted_outputs={name: _dumped(out) for name, out in response.hosted_outputs.items()},
        usage=response.usage,
        expansion=None if response.expansion is None else encode_overrides(response.expansion),
        finish_reason=response.finish_reason,
        turns=response.turns,
        messages=response.messages,
    )


def decode_response(result: RunResult, registry: PromptRegistry) -> PromptResponse[Any]:
    """The run's ``PromptResponse``, typed through the client's registry: the output, tool
    params and values. Hosted tools' outputs stay data (their types are the codecs'), and the
    session is a new one: the run's own session lived in the workflow."""
    prompt = registry.prompt(result.prompt)
    output = None
    if result.output is not None and prompt.output_type is not None:
        output = parse(prompt.output_type, result.output)
    return PromptResponse(
        prompt_name=result.prompt_name,
        run_id=result.run_id,
        session=Session(session_id=result.run_id),
        output=output,
        text=result.text,
        tool_results=decode_calls(result.tool_results, registry.tools(result.prompt)),
        hosted_outputs=dict(result.hosted_outputs),
        usage=result.usage,
        expansion=None if result.expansion is None else decode_overrides(result.expansion),
        finish_reason=result.finish_reason,
        turns=result.turns,
        messages=result.messages,
    )


def encode_calls(results: Sequence[ToolCallResult]) -> tuple[CallData, ...]:
    """A run's tool calls and their results (``PromptResponse.tool_results``) as data."""
    return tuple(
        CallData(
            call=item.call,
            result=encode_result(item.result),
            params=None if item.params is None else _dumped(item.params),
            turn=item.turn,
        )
        for item in results
    )


def decode_calls(
    items: Sequence[CallData], tools: Mapping[str, Tool[Any, Any]]
) -> tuple[ToolCallResult, ...]:
    """The tool calls of :func:`encode_calls`, params and values typed through ``tools`` (a
    value that does not come back typed is handed over as its data)."""
    decoded_calls = []
    for item in items:
        tool = tools.get(item.call.name)
        decoded = decode_result(item.result, tool)
        if isinstance(decoded.value, OpaqueValue):
            decoded = ToolResult(
                decoded.message,
                decoded.value.data,
                decoded.success,
                decoded.exclude_value_from_context,
            )
        decoded_calls.append(
            ToolCallResult(item.call, decoded, params_of(item.params, tool), item.turn)
        )
    return tuple(decoded_calls)


def params_of(data: Any, tool: Tool[Any, Any] | None) -> Any:
    """A call's validated params, typed through ``tool`` when they parse (else the data)."""
    if data is None or tool is None or tool.params_type is NoneType:
        return data
    try:
        return parse(tool.params_type, data)
    except (ParseError, TypeError):
        return data
