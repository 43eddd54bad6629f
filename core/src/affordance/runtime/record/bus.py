"""The event bus: type-keyed publish/subscribe for the events a run publishes (``events``).

Handlers run synchronously in publish order. A handler that raises is logged and skipped; it
never breaks the evaluation or the other handlers.

A process-wide observer (tracing, metrics: ``affordance-otel``) subscribes once with
:meth:`EventBus.subscribe_every_bus` and then receives the events of every bus, made before or
after; with none subscribed, a bus pays one global read per publish and nothing more. A
:class:`PrivateEventBus` is heard by its own handlers only.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from affordance.runtime.record.session import _WATCHED

__all__ = ["EventBus", "PrivateEventBus"]

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
