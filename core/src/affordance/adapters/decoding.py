"""Reading a provider's answer, plain or streamed, and the errors on the way.

Plain: parse the body once (``json.loads``), let the provider's parser build a
:class:`ProviderTurn`, and turn anything unusable — not JSON, nested too deep, the wrong shape —
into a :class:`PromptEvaluationError` carrying provider, status, request id and the raw text
(cut to a readable size). Parsers raise :class:`UnusableResponseError` for shape problems, and
read what every answer holds the same way: :func:`expect` (a value of the kind the API
promises, or the problem named), :func:`finish_reason` (the provider's reason in the core's
words), :class:`UsageFields` (its token counts).

Streamed: :func:`decode_stream` runs the provider's translator over the stream's events and
turns a malformed event, an error the provider reports mid-stream (:class:`StreamFailedError`),
a broken connection, or events that run out before the turn's end into the same kind of error,
so a stream never ends in a raw transport exception, nor in a shorter answer.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Iterator, Mapping
from dataclasses import field
from typing import Any, TypeAlias, TypeVar

from affordance._frozen import frozen
from affordance._json import loads
from affordance.adapters.sse import aclose_source
from affordance.errors import PromptEvaluationError
from affordance.runtime.model.deltas import Delta, TurnEnd
from affordance.runtime.model.turn import ProviderTurn, Usage

__all__ = [
    "MAX_RAW_TEXT",
    "StreamFailedError",
    "UnusableResponseError",
    "UsageFields",
    "adecode_stream",
    "cut",
    "decode_stream",
    "decode_turn",
    "expect",
    "finish_reason",
    "malformed_response",
    "parse_json",
    "string_or_none",
    "token_count",
]

EventT = TypeVar("EventT")
T = TypeVar("T")

MAX_RAW_TEXT = 2000
"""Characters of a bad body kept on the error (``raw_text``)."""


class UnusableResponseError(Exception):
    """A 2xx body that is not what the API promises; the adapter adds status and request id."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


class StreamFailedError(Exception):
    """The provider reported an error in the middle of a stream (an error event)."""

    def __init__(self, detail: str, *, status: int | None = None) -> None:
        self.detail = detail
        self.status = status
        super().__init__(detail)


def parse_json(text: str | bytes) -> Any:
    """``json.loads``, with every way it fails as an :class:`UnusableResponseError`."""
    try:
        return loads(text)
    except RecursionError:
        raise UnusableResponseError("the JSON is nested too deeply to read") from None
    except ValueError as error:  # json.JSONDecodeError and UnicodeDecodeError
        raise UnusableResponseError(f"not JSON ({error})") from error


def expect(value: Any, kind: type[T], problem: str) -> T:
    """``value``, when it is a ``kind`` (``dict``, ``list``, ``str``...); else the answer is
    unusable, as ``problem`` says (``{type}`` in it names the kind ``value`` is)."""
    if isinstance(value, kind):
        return value
    raise UnusableResponseError(problem.replace("{type}", type(value).__name__))


def string_or_none(value: Any) -> str | None:
    """``value`` if it is a string (an answer's id, say), else None."""
    return value if isinstance(value, str) else None


def finish_reason(reason: Any, names: Mapping[str, str], *, calls: bool) -> str:
    """The core's finish reason for a provider's ``reason``: ``tool_calls`` when the turn holds
    calls, whatever the reason says (calls are read from the answer, never from its reason, so
    a reason that claims calls the answer lacks reads ``stop``); ``stop`` when there is no
    reason; else the core's name for it in ``names``, or the reason itself."""
    if calls:
        return "tool_calls"
    named = names.get(str(reason), str(reason)) if reason else "stop"
    return "stop" if named == "tool_calls" else named


def cut(text: str, limit: int = MAX_RAW_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def malformed_response(
    detail: str,
    *,
    provider: str,
    prompt_name: str,
    status: int | None,
    request_id: str | None,
    raw_text: str,
) -> PromptEvaluationError:
    """A 2xx answer that cannot be read; never retried (the same request would get it again)."""
    return PromptEvaluationError(
        f"{provider} sent an unusable response body: {detail}",
        prompt_name=prompt_name,
        phase="response",
        provider=provider,
        status=status,
        request_id=request_id,
        raw_text=cut(raw_text),
    )


def decode_turn(
    content: bytes,
    parse: Callable[[Any], ProviderTurn],
    *,
    provider: str,
    prompt_name: str,
    status: int | None = None,
    request_id: str | Callable[[], str | None] | None = None,
) -> ProviderTurn:
    """``parse(json.loads(content))``, with every way that can fail as one readable error.

    ``request_id`` may be a function that finds it (in the response's headers, say): it is
    called only when the body cannot be read, so a turn that decodes pays nothing for it."""
    try:
        data = parse_json(content)
        try:
            return parse(data)
        except RecursionError:
            raise UnusableResponseError("the body is nested too deeply to read") from None
    except UnusableResponseError as error:
        raise malformed_response(
            error.detail,
            provider=provider,
            prompt_name=prompt_name,
            status=status,
            request_id=request_id() if callable(request_id) else request_id,
            raw_text=content.decode("utf-8", errors="replace"),
        ) from error


def token_count(value: Any, key: str | None = None) -> int:
    """An integer usage field (``value[key]`` when ``key`` is given); 0 when absent or not an
    integer (a provider that sends ``null`` or a string must not break the run)."""
    if key is not None:
        value = value.get(key) if type(value) is dict else None
    return value if type(value) is int else 0  # JSON integers only: not bool, not float


_Reader: TypeAlias = "Callable[[dict[str, Any]], int]"
"""A reader of one count from a usage object (a ``dict``)."""


@frozen
class UsageFields:
    """Where a provider's usage object keeps each count of :class:`Usage`: per count, the
    fields whose integers add up to it (``"details.cached_tokens"`` names one nested in an
    object). A field that is missing, null or no integer counts 0 (:func:`token_count`)."""

    input: tuple[str, ...]
    output: tuple[str, ...]
    cached: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()
    _readers: tuple[_Reader, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # each count's reader, chosen once
        counts = (self.input, self.output, self.cached, self.reasoning)
        object.__setattr__(self, "_readers", tuple(_count_reader(names) for names in counts))

    def read(self, usage: Any) -> Usage:
        """The counts of ``usage``; none at all when it is no object."""
        if type(usage) is not dict:  # JSON objects only: anything else has no counts
            return Usage()
        inputs, outputs, cached, reasoning = self._readers
        return Usage(inputs(usage), outputs(usage), cached(usage), reasoning(usage))  # in order


def _count_reader(names: tuple[str, ...]) -> _Reader:
    """How one count is read from a usage object: most counts are one field, read by a reader
    of its own; several are summed (their plain keys with one lookup each). Readers are
    closures: each is called for every answer, and a closure is the cheapest call."""
    if len(names) == 1:
        return _field_reader(names[0])
    keys = tuple(name for name in names if "." not in name)
    nested = tuple(_field_reader(name) for name in names if "." in name)

    def total(usage: dict[str, Any]) -> int:
        count = 0
        for key in keys:
            value = usage.get(key)
            if type(value) is int:
                count += value
        for read in nested:
            count += read(usage)
        return count

    return total


def _field_reader(name: str) -> _Reader:
    """A plain key, read with one lookup; a nested field, by its path (split once)."""
    path = tuple(name.split("."))
    if len(path) == 1:

        def key(usage: dict[str, Any]) -> int:
            value = usage.get(name)
            return value if type(value) is int else 0  # JSON integers only: not bool, not float

        return key
    if len(path) == 2:
        outer, inner = path

        def in_object(usage: dict[str, Any]) -> int:
            found = usage.get(outer)
            value = found.get(inner) if type(found) is dict else None
            return value if type(value) is int else 0

        return in_object

    def at_path(usage: dict[str, Any]) -> int:
        value: Any = usage
        for step in path:
            value = value.get(step) if type(value) is dict else None
        return value if type(value) is int else 0

    return at_path


class _StreamErrors:
    """Maps what can go wrong while a stream is read to one :class:`PromptEvaluationError`."""

    __slots__ = ("prompt_name", "provider", "request_id", "transport")

    def __init__(
        self,
        provider: str,
        prompt_name: str,
        request_id: str | Callable[[], str | None] | None,
        transport: tuple[type[BaseException], ...],
    ) -> None:
        self.provider = provider
        self.prompt_name = prompt_name
        self.request_id = request_id
        self.transport = transport

    def _request_id(self) -> str | None:
        found = self.request_id
        return found() if callable(found) else found

    def of(self, error: BaseException) -> PromptEvaluationError | None:
        if isinstance(error, UnusableResponseError):
            return PromptEvaluationError(
                f"{self.provider} sent an unusable stream event: {error.detail}",
                prompt_name=self.prompt_name,
                phase="response",
                provider=self.provider,
                request_id=self._request_id(),
            )
        if isinstance(error, StreamFailedError):
            return PromptEvaluationError(
                f"{self.provider} reported an error mid-stream: {error.detail}",
                prompt_name=self.prompt_name,
                phase="response",
                provider=self.provider,
                status=error.status,
                request_id=self._request_id(),
            )
        if isinstance(error, self.transport):
            return PromptEvaluationError(
                f"the {self.provider} stream broke off: {type(error).__name__}: {error}",
                prompt_name=self.prompt_name,
                phase="response",
                provider=self.provider,
                request_id=self._request_id(),
            )
        return None

    def incomplete(self) -> PromptEvaluationError:
        return PromptEvaluationError(
            f"the {self.provider} stream ended before the turn was complete (no final event); "
            "the answer so far is incomplete and was not used",
            prompt_name=self.prompt_name,
            phase="response",
            provider=self.provider,
            request_id=self._request_id(),
        )


def decode_stream(
    events: Iterable[EventT],
    translate: Callable[[EventT], Iterable[Delta]],
    *,
    provider: str,
    prompt_name: str,
    request_id: str | Callable[[], str | None] | None = None,
    transport_errors: tuple[type[BaseException], ...] = (),
    end: Callable[[], Iterable[Delta]] | None = None,
) -> Iterator[Delta]:
    """The deltas ``translate`` makes of each event, then those ``end()`` makes once the events
    run out (a translator that closes the turn only then; by default its own ``end`` method,
    if it has one); what breaks on the way (a malformed event, an error event, a transport
    error of ``transport_errors``, events that run out before a ``TurnEnd``) as a
    ``PromptEvaluationError``. ``request_id`` may be a function, called only for such an error
    (as in :func:`decode_turn`)."""
    errors = _StreamErrors(provider, prompt_name, request_id, transport_errors)
    caught: tuple[type[BaseException], ...] = (
        UnusableResponseError,
        StreamFailedError,
        *transport_errors,
    )
    end = end if end is not None else getattr(translate, "end", None)
    ended = False
    try:
        for event in events:
            if ended:
                raise UnusableResponseError(_after_the_end(event))
            for delta in translate(event):
                ended = ended or type(delta) is TurnEnd
                yield delta
        for delta in end() if end is not None else ():
            ended = ended or type(delta) is TurnEnd
            yield delta
    except caught as error:
        mapped = errors.of(error)
        assert mapped is not None
        raise mapped from error
    if not ended:
        raise errors.incomplete()


async def adecode_stream(
    events: AsyncIterable[EventT],
    translate: Callable[[EventT], Iterable[Delta]],
    *,
    provider: str,
    prompt_name: str,
    request_id: str | Callable[[], str | None] | None = None,
    transport_errors: tuple[type[BaseException], ...] = (),
    end: Callable[[], Iterable[Delta]] | None = None,
) -> AsyncGenerator[Delta, None]:
    """The async form of :func:`decode_stream`; closing it closes ``events``."""
    errors = _StreamErrors(provider, prompt_name, request_id, transport_errors)
    caught: tuple[type[BaseException], ...] = (
        UnusableResponseError,
        StreamFailedError,
        *transport_errors,
    )
    end = end if end is not None else getattr(translate, "end", None)
    ended = False
    try:
        async for event in events:
            if ended:
                raise UnusableResponseError(_after_the_end(event))
            for delta in translate(event):
                ended = ended or type(delta) is TurnEnd
                yield delta
        for delta in end() if end is not None else ():
            ended = ended or type(delta) is TurnEnd
            yield delta
    except caught as error:
        mapped = errors.of(error)
        assert mapped is not None
        raise mapped from error
    finally:
        await aclose_source(events)
    if not ended:
        raise errors.incomplete()


def _after_the_end(event: object) -> str:
    """What is wrong with an event that arrived after the one that ended the turn: the turn
    was complete, so nothing can be placed in it any more (named by its SSE event type when it
    has one; never by its content)."""
    name = getattr(event, "event", None)
    kind = f"a {name!r} event" if isinstance(name, str) and name else "an event"
    return f"{kind} arrived after the event that ended the turn"
