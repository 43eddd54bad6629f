"""The base of a provider's stream translator: what every streamed turn keeps track of, and typed
events read through a table of handlers.

A translator (:data:`~affordance.adapters.wire.Translate`) turns each event of one streamed
answer into the core's deltas; the core assembles the turn from them. Whatever the wire format,
a translator keeps the same few things while the events arrive and refuses the same mistakes,
so :class:`StreamTranslator` holds them once:

- the function calls begun, ``(call id, name)`` by the provider's stream index (Chat's
  tool-call ``index``, Responses' ``output_index``, a Messages content block's ``index``): a
  call without a string id and name is refused, and so is a second call begun at an index
  already used — it cannot be placed, and is never folded into the first (a call streamed in
  fragments keyed by index: :meth:`StreamTranslator.call_fragment`);
- whether a refusal came, and the finish (stop) reason, response id and model as the provider
  last reported them, for the :class:`~affordance.runtime.model.deltas.TurnEnd`
  (:meth:`StreamTranslator.turn_end`);
- whether the request declared hosted tools (``hosted``): the answer's items then go to their
  codecs too (``ProviderItem.hosted``).

A stream of typed events (a JSON object per event, named by its ``type``, else by the SSE
``event:`` line) is read declaratively: a subclass maps each type it reads to a handler in
:attr:`StreamTranslator.handlers`, and any other type goes to :meth:`StreamTranslator.other`
(nothing, unless the subclass reads a family of types there). An event that is no JSON object,
or that its handler cannot read as documented (a key missing, a value of the wrong kind), is an
:class:`~affordance.adapters.decoding.UnusableResponseError` naming the event; a handler reads
the fields it needs of a kind with readers :func:`event_field` makes. A format without
typed events (Chat Completions' chunks) overrides ``__call__`` and keeps the bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias, TypeVar

from affordance.adapters.decoding import UnusableResponseError, finish_reason, parse_json
from affordance.adapters.sse import SseEvent
from affordance.runtime.model.deltas import (
    Delta,
    RefusalPiece,
    ToolCallArguments,
    ToolCallBegun,
    TurnEnd,
)
from affordance.runtime.model.turn import Usage

__all__ = ["EventHandler", "StreamTranslator", "event_field"]

T = TypeVar("T")

EventHandler: TypeAlias = "Callable[[Any, dict[str, Any]], Sequence[Delta]]"
"""The handler of one event type: the translator and the event's object in, the event's deltas
out — built before it returns (a tuple or a list, not a generator), so that what goes wrong
while it reads the event is reported as the event's."""


class StreamTranslator:
    """One streamed answer, event by event: call it with each SSE event."""

    __slots__ = ("calls", "hosted", "reason", "refused", "response_id", "response_model")

    handlers: ClassVar[Mapping[str, EventHandler]] = {}
    """Each event type this translator reads, and its handler."""

    def __init__(self, *, hosted: bool = False) -> None:
        self.hosted = hosted
        """Whether the request declared hosted tools (their codecs read the answer's items)."""
        self.calls: dict[int, tuple[str, str]] = {}
        """The calls begun so far: ``(call id, name)`` by stream index."""
        self.refused = False
        self.reason: Any = None
        """The finish (stop) reason, as the provider last reported it."""
        self.response_id: str | None = None
        self.response_model: str | None = None
        """The model the answer names (``TurnEnd.response_model``), once an event named it."""

    def __call__(self, event: SseEvent) -> Sequence[Delta]:
        """The deltas of one typed event, from the handler of its type."""
        data = parse_json(event.data)
        if type(data) is not dict:
            raise UnusableResponseError(f"an event is {type(data).__name__}, not an object")
        kind = data.get("type") or event.event
        handler = self.handlers.get(kind) if isinstance(kind, str) else None
        try:
            return self.other(kind, data) if handler is None else handler(self, data)
        except (KeyError, TypeError, AttributeError) as error:
            raise UnusableResponseError(f"a {kind} event is not shaped as documented") from error

    def other(self, kind: object, data: dict[str, Any]) -> Sequence[Delta]:
        """The deltas of an event no handler reads: none. A subclass reads a family of types
        here (Responses' ``response.<tool>_call.<status>``)."""
        return ()

    def begin_call(
        self,
        index: int,
        call_id: object,
        name: object,
        *,
        lacking: str,
        twice: str = "a second call began at index {index}",
    ) -> ToolCallBegun:
        """The call begun at ``index``. Refused when its id or name is no string (``lacking``
        says so) or a call began there already (``twice``, with ``{index}`` filled in)."""
        if not isinstance(call_id, str) or not isinstance(name, str):
            raise UnusableResponseError(lacking)
        if index in self.calls:
            raise UnusableResponseError(twice.format(index=index))
        self.calls[index] = (call_id, name)
        return ToolCallBegun(index, call_id, name)

    def call_fragment(
        self, index: int, call_id: object, name: object, arguments: str, *, lacking: str
    ) -> list[Delta]:
        """The deltas of a fragment of the call at ``index``, for a format that streams a call
        in fragments keyed by index (Chat Completions' ``tool_calls``): the first begins the
        call (:meth:`begin_call`, ``lacking`` saying what an id or name missing means); a later
        one may repeat its id and name, but naming another call it is a second call at an
        index still open, which cannot be placed, and is refused. Its ``arguments`` text, when
        not empty, is more of the call's arguments."""
        begun = self.calls.get(index)
        if begun is None:
            out: list[Delta] = [self.begin_call(index, call_id, name, lacking=lacking)]
        elif (call_id or begun[0]) != begun[0] or (name or begun[1]) != begun[1]:
            raise UnusableResponseError(
                f"a tool call fragment at index {index} names another call than the one "
                "begun there; two calls cannot share an index"
            )
        else:
            out = []
        if arguments:
            out.append(ToolCallArguments(index, arguments))
        return out

    def refusal(self, text: str) -> RefusalPiece:
        """A piece of a refusal, noted: the finish reason may depend on it."""
        self.refused = True
        return RefusalPiece(text)

    def turn_end(self, usage: Usage, reason: Any, names: Mapping[str, str]) -> TurnEnd:
        """The turn's end: its ``usage``, the provider's finish ``reason`` in the core's words
        (:func:`~affordance.adapters.decoding.finish_reason` with ``names``: ``tool_calls``
        whenever a call began), and the response id and model kept so far."""
        # tool_calls whenever a call began (finish_reason's first rule), told without a call
        finished = "tool_calls" if self.calls else finish_reason(reason, names, calls=False)
        # the fields in order, none by keyword (a keyword call builds a dict): once per answer
        return TurnEnd(usage, finished, self.response_id, None, None, (), self.response_model)


def event_field(key: str, kind: type[T]) -> Callable[[Mapping[str, Any]], T]:
    """The reader of an event's field ``key``, a ``kind`` (``int`` for an index, ``str`` for a
    piece of text): an event without one is unusable, named by its type."""

    def read(event: Mapping[str, Any]) -> T:
        value = event.get(key)
        if not isinstance(value, kind):
            raise UnusableResponseError(f"a {event.get('type')} event lacks its {key}")
        return value

    return read
