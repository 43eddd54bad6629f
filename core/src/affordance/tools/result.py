"""What a tool returns: a message for the model and a typed value for the program."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from affordance._frozen import frozen
from affordance.attachments import Attachment  # at run time: durable runs read the hints

__all__ = ["OK", "ToolRenderableResult", "ToolResult", "render_value"]

OK = "OK"
"""The message of :meth:`ToolResult.ok` unless one is given; left out of the model's text."""

PayloadT = TypeVar("PayloadT")
ValueT = TypeVar("ValueT")


@runtime_checkable
class ToolRenderableResult(Protocol):
    """A result value that chooses its own text for the model (a table, a summary, ...)."""

    def render(self) -> str: ...


@frozen
class ToolResult(Generic[PayloadT]):
    """The outcome of one tool call.

    ``message`` is short guidance for the model; ``value`` is the typed payload handed to the
    program, rendered for the model by :meth:`render`. ``success`` is the flag reducers and
    telemetry trust. With ``exclude_value_from_context`` the model sees only the message while
    the value still reaches the session and events. ``attachments`` (``affordance.Image``,
    ``affordance.Document``) go to the model with the result's text.
    """

    message: str
    value: PayloadT | None = None
    success: bool = True
    exclude_value_from_context: bool = False
    attachments: tuple[Attachment, ...] = ()

    @classmethod
    def ok(
        cls, value: ValueT, message: str = OK, *, attachments: tuple[Attachment, ...] = ()
    ) -> ToolResult[ValueT]:
        return ToolResult(message=message, value=value, attachments=tuple(attachments))

    @classmethod
    def error(cls, message: str, value: ValueT | None = None) -> ToolResult[ValueT]:
        return ToolResult(message=message, value=value, success=False)

    def render(self) -> str:
        """The value as the model sees it: its ``render()``, else compact JSON; ``""`` for None.

        Raises ``TypeError`` for a value with no JSON form and ``ValueError`` for one nested
        deeper than ``serde.MAX_DEPTH``; the executor turns either into a failed result.
        """
        return render_value(self.value)

    def model_text(self, rendered: str | None = None) -> str:
        """The full body of the tool message sent to the provider: the message, then the
        rendered value on the next line. The default message (:data:`OK`) says nothing the
        rendered value does not, so it is left out: the value's text is then the body itself,
        not a copy (a 10 MB result costs no second 10 MB).

        ``rendered`` is ``render()``'s output when the caller already has it.
        """
        if self.value is None or self.exclude_value_from_context:
            return self.message
        if rendered is None:
            rendered = render_value(self.value)
        if not rendered:
            return self.message
        if not self.message or (self.message == OK and self.success):
            return rendered
        return f"{self.message}\n{rendered}"


def render_value(value: object) -> str:
    """Render a tool value: ``render()`` if it has one, strings as they are, else compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    render = getattr(value, "render", None)
    if callable(render):
        text = render()
        if not isinstance(text, str):
            raise TypeError(
                f"{type(value).__qualname__}.render() returned {type(text).__qualname__}, not str"
            )
        return text
    data: Any = _dump()(value, exclude_none=True)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


_DUMP: Callable[..., Any] | None = None


def _dump() -> Callable[..., Any]:
    """serde's ``dump``, imported on first use: declaring prompts and tools need not load serde."""
    global _DUMP
    if _DUMP is None:
        from affordance.serde import dump

        _DUMP = dump
    return _DUMP
