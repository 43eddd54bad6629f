"""What the loopback server can answer, and what it records of each request.

Three wire shapes: a whole body (:class:`JsonReply`, or :class:`RawReply` for bytes that are
not JSON), a server-sent-event stream (:class:`SseReply` of :class:`SseEvent`) and a
newline-delimited JSON stream (:class:`NdjsonReply`, one JSON value a line); plus a reply held
back (:class:`DelayedReply`) and a connection dropped unanswered (:class:`ResetReply`). A
stream can stop early, abruptly (a TCP reset) or cleanly, after a whole event or half of one.
Nothing here knows a provider's format: a provider's fake builds its bodies and puts them in
these; :mod:`affordance_testing.loopback.faults` makes the faults of them by name.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeAlias, TypeVar

__all__ = [
    "MAX_DELAY_S",
    "REPLY_TYPES",
    "RETRY_COUNT_HEADER",
    "DelayedReply",
    "JsonReply",
    "NdjsonReply",
    "RawJson",
    "RawReply",
    "RecordedRequest",
    "Reply",
    "ResetReply",
    "Responder",
    "ScriptEntry",
    "SseEvent",
    "SseReply",
    "StreamReply",
    "dumps",
]

MAX_DELAY_S = 30.0
"""Upper bound of any server-side wait, so a forgotten delay cannot hang a test run."""

RETRY_COUNT_HEADER = "x-stainless-retry-count"
"""The attempt number the Stainless SDKs (``openai``, ``anthropic``) send: 0, then 1, ..."""

E = TypeVar("E")
"""The kind of event a streamed reply sends."""


def _frozen_headers(headers: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType({name.lower(): value for name, value in headers.items()})


def _check_status(status: int) -> None:
    if not 100 <= status <= 999:
        raise ValueError(f"HTTP status must be in 100..999, got {status}")


# --- JSON -------------------------------------------------------------------------------------


class RawJson(str):
    """Text that goes into a body verbatim where a JSON value belongs: arguments that are not
    JSON, or nested past what ``json.dumps`` can write. Any reply body may hold it."""

    __slots__ = ()


def _holds_raw(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, RawJson):
            return True
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, **options)``, with each :class:`RawJson` inside written verbatim."""
    if not _holds_raw(value):
        return json.dumps(value, **options)
    raws: dict[str, str] = {}

    def swap(item: Any) -> Any:
        if isinstance(item, RawJson):
            token = f"raw-json-{uuid.uuid4().hex}"
            raws[json.dumps(token)] = str(item)
            return token
        if isinstance(item, dict):
            return {key: swap(child) for key, child in item.items()}
        if isinstance(item, (list, tuple)):
            return [swap(child) for child in item]
        return item

    text = json.dumps(swap(value), **options)
    for quoted, raw in raws.items():
        text = text.replace(quoted, raw, 1)
    return text


# --- Replies ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JsonReply:
    """A complete JSON response; ``body`` is serialised with ``json.dumps``."""

    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_status(self.status)
        object.__setattr__(self, "headers", _frozen_headers(self.headers))


@dataclass(frozen=True, slots=True)
class RawReply:
    """Bytes sent as they are, for malformed or non-JSON bodies. With ``cut_after_bytes``, the
    headers announce the whole body but only that many bytes of it go out before a TCP reset."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    cut_after_bytes: int | None = None

    def __post_init__(self) -> None:
        _check_status(self.status)
        if self.cut_after_bytes is not None and not 0 <= self.cut_after_bytes < len(self.body):
            raise ValueError(
                f"cut_after_bytes must be in 0..{len(self.body) - 1}, got {self.cut_after_bytes}"
            )
        object.__setattr__(self, "headers", _frozen_headers(self.headers))


@dataclass(frozen=True, slots=True)
class DelayedReply:
    """Wait ``seconds``, then send ``then``. The wait ends early if the client hangs up (nothing is
    sent) or the server stops."""

    seconds: float
    then: Reply

    def __post_init__(self) -> None:
        if not 0 <= self.seconds <= MAX_DELAY_S:
            raise ValueError(f"delay must be in 0..{MAX_DELAY_S} s, got {self.seconds}")


@dataclass(frozen=True, slots=True)
class ResetReply:
    """Drop the connection without a response: a TCP reset if ``abortive``, else a plain close."""

    abortive: bool = True


@dataclass(frozen=True, slots=True)
class SseEvent:
    """One server-sent event. ``data`` that is not a ``str`` is JSON-encoded."""

    data: Any
    event: str | None = None
    id: str | None = None

    def encode(self) -> bytes:
        text = self.data if type(self.data) is str else dumps(self.data)
        lines = [f"event: {self.event}"] if self.event is not None else []
        if self.id is not None:
            lines.append(f"id: {self.id}")
        lines.extend(f"data: {line}" for line in text.split("\n"))
        return ("\n".join(lines) + "\n\n").encode()


@dataclass(frozen=True, slots=True)
class _Streamed(Generic[E]):
    """What every streamed reply has: its ``events``, each sent as one HTTP chunk of a chunked
    body, and the ways to end it early (see :class:`SseReply`)."""

    events: Sequence[E]
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    interval_s: float = 0.0
    cut_after: int | None = None
    cut_mid_event: bool = False
    cut_abortive: bool = True

    def __post_init__(self) -> None:
        _check_stream(self)
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "headers", _frozen_headers(self.headers))


@dataclass(frozen=True, slots=True)
class SseReply(_Streamed[SseEvent]):
    """A ``text/event-stream`` response sent with chunked encoding, one chunk per event.

    ``interval_s`` waits between events; ``cut_after`` stops after that many events instead of
    ending the stream properly. With ``cut_mid_event`` the first half of the next event is sent
    before the cut. ``cut_abortive`` (the default) resets the connection; otherwise the chunked
    body ends cleanly, so the client sees a stream that stops without its final event.
    """

    content_type: ClassVar[str] = "text/event-stream"

    def frames(self) -> tuple[bytes, ...]:
        """Each event as it goes out (one HTTP chunk each)."""
        return tuple(event.encode() for event in self.events)


@dataclass(frozen=True, slots=True)
class NdjsonReply(_Streamed[Any]):
    """A newline-delimited JSON stream (``application/x-ndjson``, as Ollama's ``/api/chat``
    streams): each of ``events`` goes out as one line, in one chunk — a ``str`` verbatim (text
    that need not be JSON), anything else as JSON (:func:`dumps`, so :class:`RawJson` inside is
    verbatim). ``interval_s``, ``cut_after``, ``cut_mid_event`` (half a line, no newline) and
    ``cut_abortive`` stop it early as they stop an :class:`SseReply`."""

    content_type: ClassVar[str] = "application/x-ndjson"

    def frames(self) -> tuple[bytes, ...]:
        """Each line as it goes out, its newline included (one HTTP chunk each)."""
        return tuple(
            ((event if type(event) is str else dumps(event)) + "\n").encode()
            for event in self.events
        )


StreamReply: TypeAlias = SseReply | NdjsonReply
"""A streamed reply: events sent as they are produced, one HTTP chunk each."""


def _check_stream(reply: _Streamed[Any]) -> None:
    _check_status(reply.status)
    count = len(reply.events)
    if reply.cut_mid_event and (reply.cut_after is None or reply.cut_after >= count):
        raise ValueError("cut_mid_event needs cut_after to leave an event to cut")
    if not 0 <= reply.interval_s <= MAX_DELAY_S:
        raise ValueError(f"interval_s must be in 0..{MAX_DELAY_S} s, got {reply.interval_s}")
    if reply.cut_after is not None and not 0 <= reply.cut_after <= count:
        raise ValueError(f"cut_after must be in 0..{count}, got {reply.cut_after}")


Reply: TypeAlias = JsonReply | RawReply | DelayedReply | ResetReply | SseReply | NdjsonReply
REPLY_TYPES = (JsonReply, RawReply, DelayedReply, ResetReply, SseReply, NdjsonReply)
"""The reply classes, for ``isinstance``: what a script entry or a responder's answer must be."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it. Header names are lower-cased; ``body`` is the
    parsed JSON body, or ``None`` when the body is empty or not JSON."""

    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    body: Any
    raw_body: bytes
    connection_id: int

    @property
    def retry_count(self) -> int | None:
        """The SDK's ``x-stainless-retry-count``: 0 on the first attempt; ``None`` if absent."""
        value = self.headers.get(RETRY_COUNT_HEADER)
        return None if value is None else int(value)


Responder: TypeAlias = Callable[[RecordedRequest], Reply]
ScriptEntry: TypeAlias = Reply | Responder
