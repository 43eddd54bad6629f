"""``@tool``: build a :class:`Tool` from a typed function."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Callable, Sequence
from typing import Any, overload

from affordance.errors import PromptValidationError
from affordance.tools.result import ToolResult
from affordance.tools.retry import RetryPolicy
from affordance.tools.tool import Tool, ToolExample

__all__ = ["tool"]

_ARG_LINE = re.compile(
    r"^\s{2,}(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(?P<text>.+)$"
)


@overload
def tool(fn: Callable[..., Any], /) -> Tool[Any, Any]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    destructive: bool = False,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    cache_ttl: float | None = None,
    examples: Sequence[ToolExample[Any, Any]] = (),
) -> Callable[[Callable[..., Any]], Tool[Any, Any]]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    destructive: bool = False,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    cache_ttl: float | None = None,
    examples: Sequence[ToolExample[Any, Any]] = (),
) -> Tool[Any, Any] | Callable[[Callable[..., Any]], Tool[Any, Any]]:
    """Make a tool from a function; its name and docstring give the tool's name and description.

    Two shapes are understood. A function taking one dataclass (``(params: P, *, context)``)
    becomes a tool with params ``P``. Any other typed function (``(title: str, priority: str =
    "medium")``) gets a params dataclass generated from its parameters, with descriptions taken
    from the docstring's ``Args:`` section, and a plain return value is wrapped in
    ``ToolResult.ok``. Either may also take ``*, context: ToolContext`` and may be ``async``.
    """

    def build(function: Callable[..., Any]) -> Tool[Any, Any]:
        tool_name = name or function.__name__
        summary, arg_docs = _parse_docstring(function.__doc__ or "")
        text = description if description is not None else summary
        if not text:
            raise PromptValidationError(
                "@tool needs a description: write a docstring or pass description=...",
                tool_name=tool_name,
            )
        hints = _hints(function, tool_name)
        signature = inspect.signature(function)
        positional = [
            p
            for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        options: dict[str, Any] = {
            "name": tool_name,
            "description": text,
            "destructive": destructive,
            "timeout": timeout,
            "retry": retry,
            "cache_ttl": cache_ttl,
            "examples": tuple(examples),
        }
        if len(positional) == 1 and _is_params_class(hints.get(positional[0].name)):
            return Tool(handler=function, **options)
        params_type = _params_dataclass(function, signature, hints, arg_docs, tool_name)
        return Tool(
            handler=_kwargs_handler(function, signature),
            params_type=params_type,
            result_type=_declared_result(hints.get("return")),
            **options,
        )

    return build if fn is None else build(fn)


def _is_params_class(annotation: Any) -> bool:
    return isinstance(annotation, type) and (
        dataclasses.is_dataclass(annotation) or hasattr(annotation, "model_fields")
    )


def _hints(function: Callable[..., Any], tool_name: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception as error:
        raise PromptValidationError(
            f"cannot resolve the annotations of {function.__qualname__}: {error}",
            tool_name=tool_name,
        ) from error


def _params_dataclass(
    function: Callable[..., Any],
    signature: inspect.Signature,
    hints: dict[str, Any],
    arg_docs: dict[str, str],
    tool_name: str,
) -> type[Any]:
    fields: list[tuple[str, Any, Any]] = []
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and parameter.name == "context":
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise PromptValidationError(
                f"@tool functions cannot take *{parameter.name}; declare each parameter",
                tool_name=tool_name,
            )
        if parameter.name not in hints:
            raise PromptValidationError(
                f"parameter {parameter.name!r} needs a type annotation", tool_name=tool_name
            )
        metadata = {"description": arg_docs[parameter.name]} if parameter.name in arg_docs else {}
        if parameter.default is parameter.empty:
            spec = dataclasses.field(metadata=metadata)
        else:
            spec = dataclasses.field(default=parameter.default, metadata=metadata)
        fields.append((parameter.name, hints[parameter.name], spec))
    class_name = "".join(part.capitalize() for part in tool_name.replace("-", "_").split("_"))
    params_type = dataclasses.make_dataclass(f"{class_name}Params", fields, frozen=True, slots=True)
    params_type.__module__ = function.__module__
    params_type.__doc__ = f"Parameters of the {tool_name} tool."
    return params_type


def _kwargs_handler(function: Callable[..., Any], signature: inspect.Signature) -> Any:
    wants_context = "context" in signature.parameters
    names = tuple(n for n in signature.parameters if n != "context")

    if inspect.iscoroutinefunction(function):

        async def call_async(params: Any, *, context: Any) -> ToolResult[Any]:
            kwargs = {n: getattr(params, n) for n in names}
            if wants_context:
                kwargs["context"] = context
            return _as_result(await function(**kwargs))

        return call_async

    def call(params: Any, *, context: Any) -> ToolResult[Any]:
        kwargs = {n: getattr(params, n) for n in names}
        if wants_context:
            kwargs["context"] = context
        return _as_result(function(**kwargs))

    return call


def _as_result(value: Any) -> ToolResult[Any]:
    return value if isinstance(value, ToolResult) else ToolResult.ok(value)


def _declared_result(annotation: Any) -> Any:
    if typing.get_origin(annotation) is ToolResult:
        return typing.get_args(annotation)[0]
    return annotation


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph (joined to one line) and the ``Args:`` entries of a docstring."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    for line in lines:
        if not line.strip():
            break
        summary.append(line.strip())
    args: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args, current = True, None
            continue
        if not in_args:
            continue
        if stripped and not line.startswith(" "):
            break
        match = _ARG_LINE.match(line)
        if match and (current is None or len(line) - len(line.lstrip()) <= 4):
            current = match.group("name")
            args[current] = match.group("text").strip()
        elif current is not None and stripped:
            args[current] += " " + stripped
    return " ".join(summary), args
