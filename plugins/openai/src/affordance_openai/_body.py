"""The request body both OpenAI APIs build the same way.

Chat Completions and Responses differ in where things go (``messages`` vs ``input``, nested vs
flat function declarations, ``response_format`` vs ``text.format``, ``max_completion_tokens``
vs ``max_output_tokens``), not in what is sent. :class:`ApiShape` holds those differences;
:func:`build_body` is the one skeleton.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from affordance.adapters import (
    TOOL_CHOICE_KEYWORDS,
    ModelRequest,
    PreparedRequest,
    RequestSettings,
    merge_extra_body,
)

if TYPE_CHECKING:
    from affordance.adapters import ProviderAdapter

__all__ = ["ApiShape", "arguments_text", "build_body"]

_BUILT_ON_BOTH = frozenset(
    {
        "model",
        "tools",
        "parallel_tool_calls",
        "tool_choice",
        "temperature",
        "stream",
        "stream_options",
    }
)


@dataclass(frozen=True, slots=True)
class ApiShape:
    """Where one API puts each part of the request."""

    transcript_key: str
    transcript: Callable[[ProviderAdapter, ModelRequest], list[Mapping[str, Any]]]
    instructions_key: str | None
    function: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    named_choice: Callable[[str], Mapping[str, Any]]
    output_key: str
    output_format: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    max_tokens_key: str
    hosted_in_tools: bool
    """Whether hosted tools' declarations join ``tools`` (Responses) or are request fields
    merged into the body (Chat: ``web_search_options``)."""
    built_fields: frozenset[str] = field(init=False)
    """Every body field the adapter builds on this API: a hosted tool's codec may add request
    fields (``include``), never one of these."""

    def __post_init__(self) -> None:
        own = (self.transcript_key, self.instructions_key, self.output_key, self.max_tokens_key)
        built = _BUILT_ON_BOTH.union(key for key in own if key is not None)
        object.__setattr__(self, "built_fields", built)


def build_body(
    adapter: ProviderAdapter, request: ModelRequest, settings: RequestSettings, shape: ApiShape
) -> PreparedRequest:
    """The body of ``request`` on ``shape``'s API. The hosted tools' request extras go in before
    the function tools, and the caller's ``extra_body`` is merged last (it may replace them)."""
    hosted = adapter.hosted_request(request)
    body: dict[str, Any] = {
        "model": settings.model,
        shape.transcript_key: shape.transcript(adapter, request),
    }
    if shape.instructions_key is not None and request.instructions is not None:
        body[shape.instructions_key] = request.instructions
    tools = [shape.function(adapter.declaration(tool).wire) for tool in request.tools]
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
        choice = request.tool_choice
        if isinstance(choice, str) and choice not in TOOL_CHOICE_KEYWORDS:
            choice = shape.named_choice(choice)
        if choice is not None:
            body["tool_choice"] = choice
    if request.output_schema is not None:
        formatted = adapter.output_format(request.output_schema, request.output_name)
        body[shape.output_key] = shape.output_format(formatted.wire)
    if settings.max_tokens is not None:
        body[shape.max_tokens_key] = settings.max_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, hosted=bool(hosted.declarations))


def arguments_text(arguments: Any) -> str:
    """A call's arguments as received: JSON text, even invalid (the executor reports that to
    the model). Some OpenAI-compatible servers send an object instead; it becomes its JSON."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)
