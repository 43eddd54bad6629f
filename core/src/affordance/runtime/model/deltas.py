"""What a streaming provider sends the core while a model turn arrives, and how the core
assembles those pieces into the same :class:`ProviderTurn` a plain request returns.

A provider plugin's ``send_stream`` translates each wire event into zero or more deltas and
ends with exactly one :class:`TurnEnd`; it never assembles anything itself. The core's
:class:`TurnAssembler` joins the pieces, so every provider's streamed turn is built by one piece
of code, and a stream that stops before its ``TurnEnd`` is an error, never a shorter answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from affordance._frozen import frozen
from affordance.errors import PromptEvaluationError
from affordance.runtime.model.messages import ToolCall
from affordance.runtime.model.turn import NO_USAGE, ModelSwitch, ProviderTurn, Usage

__all__ = [
    "Delta",
    "DeltaError",
    "HostedActivity",
    "ProviderItem",
    "RefusalPiece",
    "TextPiece",
    "ToolCallArguments",
    "ToolCallBegun",
    "ToolCallReady",
    "TurnAssembler",
    "TurnEnd",
    "asent_whole",
    "deltas_of",
    "sent_whole",
]


@frozen
class TextPiece:
    """More of the model's answer text."""

    text: str


@frozen
class RefusalPiece:
    """More of a refusal (OpenAI sends refusals as their own text)."""

    text: str


@frozen
class ToolCallBegun:
    """The model started a function call; ``index`` identifies it among this turn's calls."""

    index: int
    call_id: str
    name: str


@frozen
class ToolCallArguments:
    """A piece of a call's arguments as JSON text (providers that stream arguments)."""

    index: int
    text: str


@frozen
class ToolCallReady:
    """A call is complete. ``arguments``, when given, replaces the pieces: a provider sending
    the arguments whole (an object, or the final text) gives them here."""

    index: int
    arguments: str | Mapping[str, Any] | None = None


@frozen
class ProviderItem:
    """A complete provider item, as a plain dict: ``echo`` ones go back on the next request
    (``ProviderTurn.provider_items``), ``hosted`` ones to the hosted-tool codecs."""

    item: Mapping[str, Any]
    echo: bool = True
    hosted: bool = False


@frozen
class HostedActivity:
    """A hosted tool is working (``status`` as the provider says it: ``searching``,
    ``interpreting``, ...); shown to stream consumers, not part of the turn."""

    item_type: str
    status: str
    item_id: str | None = None


@frozen
class TurnEnd:
    """The turn is over: the last delta of every stream. ``provider``, ``model`` and
    ``switches`` say who answered when a model answers for others (a fallback; see
    ``ProviderTurn``); ``response_model`` is the model the response names."""

    usage: Usage = NO_USAGE
    finish_reason: str = "stop"
    response_id: str | None = None
    provider: str | None = None
    model: str | None = None
    switches: tuple[ModelSwitch, ...] = ()
    response_model: str | None = None


Delta: TypeAlias = (
    TextPiece
    | RefusalPiece
    | ToolCallBegun
    | ToolCallArguments
    | ToolCallReady
    | ProviderItem
    | HostedActivity
    | TurnEnd
)


@dataclass(slots=True)
class _Call:
    call_id: str
    name: str
    pieces: list[str] = field(default_factory=list)
    arguments: str | Mapping[str, Any] | None = None


class DeltaError(ValueError):
    """Deltas that do not make a turn: out of order (arguments for a call that never began, a
    delta after the end) or carrying the wrong type. The stream drivers report it as a
    ``PromptEvaluationError`` (phase ``response``): the provider's stream cannot be read."""


_ASSEMBLED = (
    TextPiece,
    ToolCallArguments,
    ProviderItem,
    TurnEnd,
    ToolCallBegun,
    ToolCallReady,
    RefusalPiece,
)
"""The deltas a turn is made of (``HostedActivity`` is shown to stream consumers only)."""

_EXACT = frozenset(_ASSEMBLED)


def _assembled_as(delta: object) -> type[Any] | None:
    """The delta type an instance of a subclass is assembled as; None for anything else."""
    for kind in _ASSEMBLED:
        if isinstance(delta, kind):
            return kind
    return None


class TurnAssembler:
    """Joins one turn's deltas into a :class:`ProviderTurn`."""

    __slots__ = ("_calls", "_end", "_hosted", "_items", "_refusal", "_text")

    def __init__(self) -> None:
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._items: list[Mapping[str, Any]] = []
        self._hosted: list[Mapping[str, Any]] = []
        self._end: TurnEnd | None = None

    def add(self, delta: Delta) -> None:
        if self._end is not None:
            raise DeltaError(f"a {type(delta).__name__} arrived after the turn ended")
        # Told by its exact type (one lookup; a subclass's instance by the type it extends), the
        # most frequent first: a stream's text and arguments, then what every turn brings. The
        # delta comes from plugin code, read as Any: its annotations are no promise.
        got: Any = delta
        kind: type[Any] | None = type(got)
        if kind not in _EXACT:
            kind = _assembled_as(got)
        if kind is TextPiece:
            text = got.text
            self._text.append(text if type(text) is str else _text(text))  # no call when fine
        elif kind is ToolCallArguments:
            piece = got.text
            self._call(got.index).pieces.append(piece if type(piece) is str else _text(piece))
        elif kind is ProviderItem:
            if got.echo:
                self._items.append(got.item)
            if got.hosted:
                self._hosted.append(got.item)
        elif kind is TurnEnd:
            self._end = got
        elif kind is ToolCallBegun:
            index, call_id, name = got.index, got.call_id, got.name
            if index in self._calls:
                raise DeltaError(f"tool call {index} began twice")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise DeltaError(f"tool call {index} has no string id and name")
            self._calls[index] = _Call(call_id, name)
        elif kind is ToolCallReady:
            arguments = got.arguments
            if arguments is not None:
                # a dict is told before the Mapping ABC's (slower) check
                if type(arguments) is not dict and not isinstance(arguments, (str, Mapping)):
                    raise DeltaError(f"tool call {got.index} is ready with no text or object")
                self._call(got.index).arguments = arguments
        elif kind is RefusalPiece:
            self._refusal.append(_text(got.text))

    def _call(self, index: int) -> _Call:
        call = self._calls.get(index)
        if call is None:
            raise DeltaError(f"arguments for tool call {index}, which never began")
        return call

    @property
    def complete(self) -> bool:
        return self._end is not None

    def turn(self, *, provider: str | None = None, prompt_name: str | None = None) -> ProviderTurn:
        """The assembled turn; a :class:`PromptEvaluationError` if the stream never ended."""
        end = self._end
        if end is None:
            raise PromptEvaluationError(
                "the response stream ended before the turn was complete (no final event); "
                "the answer so far is incomplete and was not used",
                prompt_name=prompt_name,
                phase="response",
                provider=provider,
            )
        calls = (
            tuple(
                [
                    ToolCall(
                        call.call_id,
                        call.name,
                        call.arguments if call.arguments is not None else "".join(call.pieces),
                    )
                    for _, call in sorted(self._calls.items())
                ]
            )
            if self._calls
            else ()
        )
        text = "".join(self._text) if self._text else None
        refusal = "".join(self._refusal) if self._refusal else None
        return ProviderTurn(  # the fields in order (by keyword, a dozen cost a third more)
            text,
            calls,
            tuple(self._hosted),
            tuple(self._items),
            end.usage,
            end.finish_reason,
            refusal,
            end.response_id,
            end.provider,
            end.model,
            end.switches,
            end.response_model,
        )


def deltas_of(turn: ProviderTurn, *, chunk: int = 0) -> Iterator[Delta]:
    """A whole turn as the deltas a stream would bring (text in pieces of ``chunk`` characters;
    0: one piece). How providers without streaming, and the scripted adapter, stream."""
    if turn.text:
        yield from (TextPiece(piece) for piece in _pieces(turn.text, chunk))
    if turn.refusal:
        yield from (RefusalPiece(piece) for piece in _pieces(turn.refusal, chunk))
    hosted = {id(item) for item in turn.hosted_items}
    echoed = {id(item) for item in turn.provider_items}
    for item in turn.provider_items:
        yield ProviderItem(item, echo=True, hosted=id(item) in hosted)
    for item in turn.hosted_items:
        if id(item) not in echoed:
            yield ProviderItem(item, echo=False, hosted=True)
    for index, call in enumerate(turn.tool_calls):
        yield ToolCallBegun(index, call.id, call.name)
        if isinstance(call.arguments, str):
            yield from (ToolCallArguments(index, piece) for piece in _pieces(call.arguments, chunk))
            yield ToolCallReady(index)
        else:
            yield ToolCallReady(index, call.arguments)
    yield TurnEnd(
        turn.usage,
        turn.finish_reason,
        turn.response_id,
        turn.provider,
        turn.model,
        turn.switches,
        turn.response_model,
    )


def sent_whole(send: Callable[[Any], ProviderTurn], request: Any) -> Iterator[Delta]:
    """A plain request's turn as a stream's deltas, sent on the first ``next``: how a model
    that does not stream answers ``send_stream``."""
    yield from deltas_of(send(request))


async def asent_whole(
    asend: Callable[[Any], Awaitable[ProviderTurn]], request: Any
) -> AsyncIterator[Delta]:
    """The async form of :func:`sent_whole`."""
    for delta in deltas_of(await asend(request)):
        yield delta


def _pieces(text: str, size: int) -> Iterator[str]:
    if size <= 0 or len(text) <= size:
        yield text
        return
    for start in range(0, len(text), size):
        yield text[start : start + size]


def _text(value: object) -> str:
    """A piece of text a delta carries; anything else means the stream cannot be read (the
    deltas come from plugin code: a wrong type must not break the run further on)."""
    if not isinstance(value, str):
        raise DeltaError(f"a delta carries {type(value).__name__} where text belongs")
    return value
