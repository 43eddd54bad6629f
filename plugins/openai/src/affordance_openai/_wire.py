"""What the Responses and Chat translations share: the adapter's settings, a prepared request,
and the small wire conventions both APIs follow (JSON-string arguments, no error flag)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from affordance.runtime.messages import ToolCall, ToolResultMessage
from affordance_openai._nulls import NullPlan, drop_nulls_in_json

__all__ = [
    "TOOL_CHOICE_KEYWORDS",
    "PreparedRequest",
    "RequestSettings",
    "UnusableResponseError",
    "arguments_text",
    "call_arguments",
    "merge_extra_body",
    "token_count",
    "tool_choice_for_turn",
    "tool_result_text",
]

TOOL_CHOICE_KEYWORDS = frozenset({"auto", "none", "required"})


@dataclass(frozen=True, slots=True)
class RequestSettings:
    """The adapter's options, as every request of one evaluation sends them."""

    model: str
    parallel_tool_calls: bool | None = None
    tool_choice: str | Mapping[str, Any] | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request body, plus what parsing its answer needs: where the model's nulls mean absent
    (per tool name, and for the structured output) and whether hosted tools were declared."""

    body: dict[str, Any]
    tool_nulls: Mapping[str, NullPlan]
    output_nulls: NullPlan | None
    hosted: bool


class UnusableResponseError(Exception):
    """A 2xx body that is not what the API promises; the adapter adds status and request id."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


def arguments_text(call: ToolCall) -> str:
    """A call's arguments as the JSON string OpenAI expects when they are echoed back."""
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(dict(call.arguments), ensure_ascii=False, separators=(",", ":"))


def tool_choice_for_turn(
    choice: str | Mapping[str, Any] | None, turn: int
) -> str | Mapping[str, Any] | None:
    """The ``tool_choice`` to send on ``turn``: a keyword, a function name, a wire mapping, or
    ``None`` (not sent).

    ``"required"`` and a function name force a call, so they apply to the first turn only and
    later turns use ``"auto"``; otherwise the model could never give its final answer.
    ``"auto"``, ``"none"`` and mappings (the caller's exact wire value) go with every turn.
    """
    if choice is None or not isinstance(choice, str) or choice in ("auto", "none"):
        return choice
    return choice if turn <= 1 else "auto"


def call_arguments(arguments: Any, name: str, tool_nulls: Mapping[str, NullPlan]) -> str:
    """A call's arguments as received (a JSON string, even invalid: the executor reports that
    to the model), without the nulls that mean "absent" for this tool."""
    if not isinstance(arguments, str):  # not OpenAI's format, but compatible servers do it
        arguments = "" if arguments is None else json.dumps(arguments)
    plan = tool_nulls.get(name)
    return arguments if plan is None else drop_nulls_in_json(arguments, plan)


def tool_result_text(message: ToolResultMessage) -> str:
    """OpenAI has no error flag on tool results: a failure says so in its first word."""
    return f"Error: {message.content}" if message.is_error else message.content


def token_count(value: Any, key: str | None = None) -> int:
    """An integer usage field (``value[key]`` when ``key`` is given); 0 when absent."""
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def merge_extra_body(body: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge the caller's ``extra_body`` into ``body``: the caller wins, except that two objects
    under one key are merged (``text.verbosity`` next to our ``text.format``)."""
    for key, value in extra.items():
        ours = body.get(key)
        if isinstance(ours, Mapping) and isinstance(value, Mapping):
            body[key] = {**ours, **value}
        else:
            body[key] = value
