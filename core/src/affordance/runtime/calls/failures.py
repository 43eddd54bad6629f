"""The failed results the model reads when a call cannot run or its handler fails.

Each says what went wrong and, where it can, what to do instead: the model is expected to
recover from these, so they are written for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from affordance._frozen import frozen
from affordance.errors import ToolError
from affordance.tools.result import ToolResult

__all__ = ["ToolErrorInfo"]

_MAX_DETAIL = 300


@frozen
class ToolErrorInfo:
    """The structured payload of a :class:`ToolError`, as the model sees it."""

    error: str
    code: str
    retryable: bool = False
    recover_action: str | None = None

    def render(self) -> str:
        payload: Mapping[str, Any] = {
            "error": self.error,
            "code": self.code,
            "retryable": self.retryable,
            "recover_action": self.recover_action,
        }
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def unknown_tool(name: str, available: Iterable[str]) -> ToolResult[None]:
    names = ", ".join(sorted(available)) or "none"
    return ToolResult.error(f"Unknown tool {name!r}. Available tools: {names}.")


def invalid_json(name: str, detail: str) -> ToolResult[None]:
    return ToolResult.error(
        f"Arguments for {name!r} are not valid JSON ({_cut(detail)}). Send a JSON object."
    )


def too_large(name: str, size: int, limit: int) -> ToolResult[None]:
    return ToolResult.error(
        f"Arguments for {name!r} are too large: {size:,} characters, the limit is {limit:,}. "
        "Send less, or split the work into several calls."
    )


def not_an_object(name: str, got: object) -> ToolResult[None]:
    return ToolResult.error(
        f"Arguments for {name!r} must be a JSON object, got {type(got).__name__}."
    )


def invalid_arguments(name: str, detail: str) -> ToolResult[None]:
    return ToolResult.error(f"Invalid arguments for {name!r}: {detail}")


def denied(name: str, reason: str) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} may not run: {reason}.")


def no_handler(name: str) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} has no handler in this application.")


def timed_out(name: str, seconds: float) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} timed out after {seconds:g}s.")


def deadline_passed(name: str) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} was not run: the evaluation deadline has passed.")


def skipped_after_terminal(name: str, terminal: str) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} was not run: {terminal!r} ended the turn before it.")


def tool_error(error: ToolError) -> ToolResult[ToolErrorInfo]:
    info = ToolErrorInfo(error.message, error.code, error.retryable, error.recover_action)
    return ToolResult(message=error.message, value=info, success=False)


def handler_raised(name: str, error: BaseException) -> ToolResult[None]:
    return ToolResult.error(f"Tool {name!r} failed: {describe_error(error)}")


def unrenderable(name: str, error: BaseException) -> ToolResult[None]:
    return ToolResult.error(
        f"Tool {name!r} failed: its result cannot be sent to the model ({describe_error(error)})."
    )


def describe_error(error: BaseException) -> str:
    """``Type: message``, cut short; an exception whose ``str()`` fails is named only."""
    try:
        detail = _cut(str(error))
    except Exception:  # noqa: BLE001 - a handler's exception type may break its own __str__
        detail = ""
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__


def bad_return(name: str, value: object) -> ToolResult[None]:
    return ToolResult.error(
        f"Tool {name!r} failed: its handler returned {type(value).__qualname__}, not a ToolResult."
    )


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_DETAIL else text[: _MAX_DETAIL - 1] + "…"
