"""In-process events: what happened during an evaluation, published on an :class:`EventBus`.

Handlers run synchronously in publish order. A handler that raises is logged and skipped; it
never breaks the evaluation or the other handlers. Every session keeps the ``ToolInvoked`` and
``PromptExecuted`` events of its runs (:func:`~affordance.runtime.record.session.kept_by_default`).

A process-wide observer (tracing, metrics: ``affordance-otel``) subscribes once with
:meth:`EventBus.subscribe_every_bus` and then receives the events of every bus, made before or
after; with none subscribed, a bus pays one global read per publish and nothing more.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from affordance._fastinit import fast_init
from affordance.prompt.disclosure import DisclosureRequest
from affordance.runtime.record.session import _WATCHED, kept_by_default, watched_event
from affordance.tools.result import ToolResult

if TYPE_CHECKING:
    from affordance.prompt.overrides.applied import SkippedOverride
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.rendered import RenderedPrompt
    from affordance.runtime.model.turn import Usage
    from affordance.runtime.record.response import PromptResponse
    from affordance.tools.tool import Tool

__all__ = [
    "ConfirmationRequested",
    "ConfirmationResolved",
    "DisclosureRequest",
    "EvaluationFailed",
    "EvaluationStarted",
    "EventBus",
    "ModelAnswered",
    "ModelRequestFailed",
    "ModelRequestSent",
    "ModelSwitched",
    "OutputRetried",
    "OverrideSkipped",
    "PrivateEventBus",
    "PromptExecuted",
    "PromptRendered",
    "ToolAttemptFailed",
    "ToolCallDenied",
    "ToolHandlerStarted",
    "ToolInvoked",
]

_log = logging.getLogger("affordance.events")

EventT = TypeVar("EventT")
Handler = Callable[[Any], None]


_EVERY_BUS: dict[type[Any], tuple[Handler, ...]] = {}
"""Handlers of every bus (:meth:`EventBus.subscribe_every_bus`). Replaced, never changed in
place, under ``_EVERY_BUS_LOCK``: a publish reads it without the lock."""
_EVERY_BUS_WATCHES_REQUESTS = False
_EVERY_BUS_LOCK = threading.Lock()


class EventBus:
    """Type-keyed publish/subscribe; subscribing to ``object`` receives every event.

    A bus delivers to its own handlers, then to the process-wide ones of
    :meth:`subscribe_every_bus`."""

    __slots__ = ("_handlers", "_lock", "_watches_requests")

    def __init__(self) -> None:
        self._handlers: dict[type[Any], tuple[Handler, ...]] = {}
        self._lock = threading.Lock()
        self._watches_requests = False

    @property
    def watches_requests(self) -> bool:
        """A handler would receive a run's request events (``REQUEST_EVENTS``): runs build
        them only then. Stays true once set; true for every bus while a process-wide handler
        of one is subscribed."""
        return self._watches_requests or _EVERY_BUS_WATCHES_REQUESTS

    def subscribe(self, event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        with self._lock:
            self._handlers[event_type] = (*self._handlers.get(event_type, ()), handler)
            if event_type is object or event_type in _WATCHED:
                self._watches_requests = True

    def unsubscribe(self, event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        with self._lock:
            remaining = tuple(h for h in self._handlers.get(event_type, ()) if h != handler)
            self._handlers[event_type] = remaining

    @staticmethod
    def subscribe_every_bus(event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        """Deliver every ``event_type`` event published on any bus of this process to
        ``handler`` (after the bus's own handlers), until :meth:`unsubscribe_every_bus`: the
        seam of process-wide observers such as tracing. Runs build the events it asks for,
        request events included, as they do for a bus's own subscribers."""
        global _EVERY_BUS, _EVERY_BUS_WATCHES_REQUESTS
        with _EVERY_BUS_LOCK:
            every = dict(_EVERY_BUS)
            every[event_type] = (*every.get(event_type, ()), handler)
            _EVERY_BUS = every
            _EVERY_BUS_WATCHES_REQUESTS = _watches_requests(every)

    @staticmethod
    def unsubscribe_every_bus(event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        """Stop what :meth:`subscribe_every_bus` started (nothing if it was not subscribed)."""
        global _EVERY_BUS, _EVERY_BUS_WATCHES_REQUESTS
        with _EVERY_BUS_LOCK:
            every = dict(_EVERY_BUS)
            remaining = tuple(h for h in every.get(event_type, ()) if h != handler)
            if remaining:
                every[event_type] = remaining
            else:
                every.pop(event_type, None)
            _EVERY_BUS = every
            _EVERY_BUS_WATCHES_REQUESTS = _watches_requests(every)

    def has_subscribers(self) -> bool:
        """Whether this bus has handlers of its own (process-wide ones are not counted)."""
        return any(self._handlers.values())

    def wants(self, event_type: type[Any]) -> bool:
        """Whether an event of ``event_type`` would reach a handler (so it is worth building)."""
        handlers = self._handlers
        if handlers and (handlers.get(event_type) or handlers.get(object)):
            return True
        every = _EVERY_BUS
        return bool(every) and bool(every.get(event_type) or every.get(object))

    def wants_either(self, first: type[Any], second: type[Any]) -> bool:
        """Whether an event of either type would reach a handler (one look when none would)."""
        handlers = self._handlers
        every = _EVERY_BUS
        if not handlers and not every:
            return False
        return self.wants(first) or self.wants(second)

    def publish(self, event: object) -> None:
        handlers = self._handlers
        every = _EVERY_BUS
        if not handlers and not every:
            return
        self._deliver(event, handlers, every)

    @staticmethod
    def _deliver(
        event: object,
        handlers: dict[type[Any], tuple[Handler, ...]],
        every: dict[type[Any], tuple[Handler, ...]],
    ) -> None:
        event_type = type(event)
        found = (*handlers.get(event_type, ()), *handlers.get(object, ()))
        if every:
            found = (*found, *every.get(event_type, ()), *every.get(object, ()))
        for handler in found:
            try:
                handler(event)
            except Exception:  # noqa: BLE001 - one bad subscriber must not break the run
                _log.exception(
                    "event handler failed",
                    extra={"affordance_event": event_type.__name__},
                )


class PrivateEventBus(EventBus):
    """A bus only its own handlers hear: process-wide handlers (:meth:`subscribe_every_bus`)
    never see its events, and its :attr:`watches_requests` is its own.

    For a run whose events repeat what was published elsewhere: a durable run's workflow
    replays the loop, while its activities publish the requests and calls where they happen —
    a tracer must not see them twice."""

    __slots__ = ()

    @property
    def watches_requests(self) -> bool:
        return self._watches_requests

    def wants(self, event_type: type[Any]) -> bool:
        handlers = self._handlers
        return bool(handlers) and bool(handlers.get(event_type) or handlers.get(object))

    def wants_either(self, first: type[Any], second: type[Any]) -> bool:
        return self.wants(first) or self.wants(second)

    def publish(self, event: object) -> None:
        handlers = self._handlers
        if handlers:
            self._deliver(event, handlers, {})


def _watches_requests(handlers: dict[type[Any], tuple[Handler, ...]]) -> bool:
    return any(kind is object or kind in _WATCHED for kind, found in handlers.items() if found)


@fast_init
@dataclass(frozen=True, slots=True)
class PromptRendered:
    """A prompt was rendered for an evaluation (again after sections were opened)."""

    prompt_name: str
    run_id: str
    rendered: RenderedPrompt[Any]


@kept_by_default
@fast_init
@dataclass(frozen=True, slots=True)
class OverrideSkipped:
    """A prompt override the evaluation was given but did not apply: stale (its original
    changed since it was written), unknown, refused or invalid (``skipped`` says which and
    why). One event per override, when the evaluation starts."""

    prompt_name: str
    run_id: str
    skipped: SkippedOverride


@kept_by_default
@fast_init
@dataclass(frozen=True, slots=True)
class ToolInvoked:
    """A tool call finished — successfully or not, from the cache or not.

    ``rendered_output`` is exactly ``result.render()`` (``""`` when the value is None), so
    observers see what the provider saw.
    """

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    params: Any
    result: ToolResult[Any]
    rendered_output: str
    duration: float
    attempts: int = 1
    cached: bool = False
    disclosure: DisclosureRequest | None = None

    @property
    def success(self) -> bool:
        return self.result.success


@fast_init
@dataclass(frozen=True, slots=True)
class ToolHandlerStarted:
    """A call's handler is about to run (before its first attempt); ``ToolInvoked`` ends it.

    The executor builds it only when someone would see it, and publishes it in the context the
    handler runs in: a copy of the run's context private to this call, which the handler's
    attempts and threads inherit and which is dropped when the call ends. So a subscriber may
    set context variables for the handler (a tracer: make the call's span current) and need
    not reset them. Calls answered without a handler (cached, refused, invalid) have none.
    """

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    params: Any
    tool: Tool[Any, Any]


@fast_init
@dataclass(frozen=True, slots=True)
class ToolAttemptFailed:
    """An attempt of a call's handler failed: ``error_code`` says how (``timeout``, a
    ``ToolError``'s code, the class name of what the handler raised); ``retrying``: another
    attempt follows. Built, like ``ToolHandlerStarted``, only when someone would see it."""

    prompt_name: str
    run_id: str
    turn: int
    call_id: str
    name: str
    attempt: int
    error_code: str
    retrying: bool


@fast_init
@dataclass(frozen=True, slots=True)
class ToolCallDenied:
    """The tool policy refused a call (or kept a hosted tool out of a request)."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    reason: str


@fast_init
@dataclass(frozen=True, slots=True)
class ConfirmationRequested:
    """A destructive call waits for the caller's approval."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    params: Any


@fast_init
@dataclass(frozen=True, slots=True)
class ConfirmationResolved:
    """The caller approved or denied a pending destructive call."""

    prompt_name: str
    run_id: str
    call_id: str
    name: str
    approved: bool
    message: str = ""


@kept_by_default
@fast_init
@dataclass(frozen=True, slots=True)
class PromptExecuted:
    """An evaluation returned (finished, or suspended awaiting confirmation)."""

    prompt_name: str
    run_id: str
    response: PromptResponse[Any]
    section_paths_opened: tuple[SectionPath, ...] = field(default=())


@fast_init
@dataclass(frozen=True, slots=True)
class ModelSwitched:
    """A request failed on one model and went to the next (a fallback's switch).

    ``failed_provider``/``failed_model`` name the model that failed, ``status`` its HTTP status
    (``None``: no answer), ``reason`` the error's metadata-only text; ``provider`` names the
    provider the request goes to next. One event per switch, before the answer's other events.
    """

    prompt_name: str
    run_id: str
    turn: int
    failed_provider: str
    failed_model: str | None
    status: int | None
    reason: str
    provider: str


@fast_init
@dataclass(frozen=True, slots=True)
class OutputRetried:
    """A final answer was not accepted (it did not parse, or a validator rejected it) and the
    model is asked for another: ``attempt`` counts the rejected answers so far (1 for the
    first), ``problems`` are what the model is told. Streamed, the rejected answer's text has
    already been shown; this event says to set it aside."""

    prompt_name: str
    run_id: str
    turn: int
    attempt: int
    problems: tuple[str, ...]


# -- a run's requests to its model, for observers (tracing, metrics): built only when watched --


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class EvaluationStarted:
    """A run began (or resumed): ``provider`` and ``model`` name its connection."""

    prompt_name: str
    run_id: str
    provider: str
    model: str | None
    resumed: bool = False


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class EvaluationFailed:
    """A run raised ``error`` instead of returning (a provider error, output retries spent, a
    usage limit reached...); ``PromptExecuted`` marks the other way a run ends."""

    prompt_name: str
    run_id: str
    error: BaseException


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class ModelRequestSent:
    """A request of turn ``turn`` is going to the model (``streamed``: as a stream), to
    ``server`` (the connection's base URL; ``None`` when it does not say).

    It is published in a context private to the request (``contextvars``): what a handler sets
    there (a tracer's current span) holds while the request is sent — for a stream, until its
    first piece — and is gone when it ends."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    streamed: bool = False
    server: str | None = None


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class ModelAnswered:
    """The model answered turn ``turn``: ``provider``/``model`` who answered (a fallback's),
    ``response_model`` the model the response names (``None``: it names none), ``duration``
    seconds from sending to the whole answer, ``first_delta`` to the first piece of a streamed
    one (``None`` for a plain request)."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    response_id: str | None
    usage: Usage
    finish_reason: str
    duration: float
    first_delta: float | None = None
    response_model: str | None = None


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class ModelRequestFailed:
    """The request of turn ``turn`` failed after ``duration`` seconds with ``error``."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    error: BaseException
    duration: float


REQUEST_EVENTS = (
    EvaluationStarted,
    EvaluationFailed,
    ModelRequestSent,
    ModelAnswered,
    ModelRequestFailed,
)
"""The events a run builds only when someone watches one of them (see ``Evaluation``)."""
