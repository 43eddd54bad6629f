"""The request body both OpenAI APIs build the same way, and what reading its answer needs.

Chat Completions and Responses differ in where things go (``messages`` vs ``input``, nested vs
flat function declarations, ``response_format`` vs ``text.format``, ``max_completion_tokens``
vs ``max_output_tokens``), not in what is sent. :class:`ApiShape` holds those differences;
:func:`build_body` is the one skeleton.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from affordance.adapters.encoding import merge_extra_body
from affordance.runtime.turn import TOOL_CHOICE_KEYWORDS, ModelRequest

if TYPE_CHECKING:
    from affordance.adapters import ProviderAdapter

__all__ = [
    "ApiShape",
    "PreparedRequest",
    "RequestSettings",
    "arguments_text",
    "build_body",
]


@dataclass(frozen=True, slots=True)
class RequestSettings:
    """The adapter's OpenAI-only options, as every request sends them."""

    model: str
    max_output_tokens: int | None = None
    temperature: float | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request body, and whether hosted tools were declared (their items go to the codecs)."""

    body: dict[str, Any]
    hosted: bool


@dataclass(frozen=True, slots=True)
class ApiShape:
    """Where one API puts each part of the request."""

    transcript_key: str
    transcript: Callable[[ProviderAdapter, ModelRequest], list[Mapping[str, Any]]]
    instructions_key: str | None
    function: Callable[[Mapping[str, Any]], Mapping[str, Any]]
    named_choice: Callable[[str], Mapping[str, Any]]
    output_format: Callable[[Mapping[str, Any]], tuple[str, Mapping[str, Any]]]
    max_tokens_key: str
    hosted_in_tools: bool
    """Whether hosted tools' declarations join ``tools`` (Responses) or are request fields
    merged into the body (Chat: ``web_search_options``)."""
    hosted_includes: Mapping[str, str] = field(default_factory=dict)
    """``include`` entries a hosted tool's results need, by its declaration's ``type``: without
    them Responses leaves out the sources a search consulted and what code printed."""


def build_body(
    adapter: ProviderAdapter,
    request: ModelRequest,
    settings: RequestSettings,
    shape: ApiShape,
    hosted: Sequence[Mapping[str, Any]] = (),
) -> PreparedRequest:
    body: dict[str, Any] = {
        "model": settings.model,
        shape.transcript_key: shape.transcript(adapter, request),
    }
    if shape.instructions_key is not None and request.instructions is not None:
        body[shape.instructions_key] = request.instructions
    tools = [shape.function(adapter.declaration(tool).wire) for tool in request.tools]
    if shape.hosted_in_tools:
        tools.extend(hosted)
        includes = [shape.hosted_includes.get(str(entry.get("type"))) for entry in hosted]
        wanted = list(dict.fromkeys(entry for entry in includes if entry is not None))
        if wanted:
            body["include"] = wanted
    else:
        for fields in hosted:
            body.update(fields)
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
        key, value = shape.output_format(formatted.wire)
        body[key] = value
    if settings.max_output_tokens is not None:
        body[shape.max_tokens_key] = settings.max_output_tokens
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    merge_extra_body(body, settings.extra_body)
    return PreparedRequest(body, hosted=bool(hosted))


def arguments_text(arguments: Any) -> str:
    """A call's arguments as received: JSON text, even invalid (the executor reports that to
    the model). Some OpenAI-compatible servers send an object instead; it becomes its JSON."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)
