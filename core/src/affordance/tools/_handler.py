"""Checking a tool handler's signature once, at construction, instead of failing mid-run."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any

from affordance._frozen import frozen
from affordance.errors import PromptValidationError
from affordance.tools.result import ToolResult

__all__ = ["HandlerShape", "inspect_handler"]

_CANONICAL = "def handler(params: Params, *, context: ToolContext) -> ToolResult[Result]"


@frozen
class HandlerShape:
    """How to call a handler, and the types its annotations declare (``None`` if absent)."""

    takes_context: bool = False
    is_async: bool = False
    params_type: Any = None
    result_type: Any = None


NO_HANDLER = HandlerShape()


def inspect_handler(handler: Callable[..., Any] | None, *, tool_name: str) -> HandlerShape:
    """Accept ``(params, *, context)`` or ``(params)``; refuse every other signature."""
    if handler is None:
        return NO_HANDLER
    try:
        signature = inspect.signature(handler)
    except (TypeError, ValueError) as error:
        raise PromptValidationError(
            f"Tool handler signature cannot be read ({error}); expected {_CANONICAL}",
            tool_name=tool_name,
        ) from error
    positional: list[inspect.Parameter] = []
    takes_context = False
    for parameter in signature.parameters.values():
        kind = parameter.kind
        if kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            positional.append(parameter)
        elif kind is parameter.KEYWORD_ONLY and parameter.name == "context":
            takes_context = True
        elif kind is parameter.KEYWORD_ONLY and parameter.default is not parameter.empty:
            continue
        else:
            raise PromptValidationError(
                f"Tool handler parameter {parameter.name!r} is not allowed; expected {_CANONICAL}"
                " (or a handler taking only params)",
                tool_name=tool_name,
            )
    if len(positional) != 1:
        raise PromptValidationError(
            f"Tool handler must take exactly one positional parameter (params), got "
            f"{len(positional)}; expected {_CANONICAL}",
            tool_name=tool_name,
        )
    hints = _type_hints(handler)
    return HandlerShape(
        takes_context=takes_context,
        is_async=inspect.iscoroutinefunction(handler)
        or inspect.iscoroutinefunction(getattr(handler, "__call__", None)),  # noqa: B004
        params_type=hints.get(positional[0].name),
        result_type=_result_type(hints.get("return")),
    )


def _type_hints(handler: Callable[..., Any]) -> dict[str, Any]:
    target = handler if inspect.isfunction(handler) or inspect.ismethod(handler) else None
    if target is None:
        target = getattr(handler, "__call__", None)  # noqa: B004
    try:
        return typing.get_type_hints(target)
    except Exception:  # noqa: BLE001 - unresolvable annotations just mean "not declared"
        return {}


def _result_type(annotation: Any) -> Any:
    """``ToolResult[X]`` (or an awaitable of it) declares ``X``."""
    origin = typing.get_origin(annotation)
    if origin is ToolResult:
        (argument,) = typing.get_args(annotation)
        return argument
    return None
