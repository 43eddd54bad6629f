"""Trace context across processes: what a run hands to work it starts elsewhere, so that work's
spans join the run's trace.

Core traces nothing. A tracing plugin (``affordance-otel``) installs a :class:`TracePropagator`
while it is on (:func:`set_trace_propagator`); the plugins that cross a process boundary carry
what it writes:

- ``affordance-temporal`` takes :func:`trace_carrier` where a durable run starts and makes it
  current (:func:`joined_trace`) around each of the run's activities on its workers;
- ``affordance-mcp`` sends it in a tool call's ``params._meta``, and continues the trace a
  client sends when it serves a prompt.

A carrier is a small ``dict[str, str]`` in the W3C Trace Context form (``traceparent``, and
``tracestate`` when there is one), the same keys whichever tracing plugin wrote it, so it can
sit in a workflow's input or an MCP request as plain JSON. With no propagator installed,
:func:`trace_carrier` is ``{}`` and :func:`joined_trace` does nothing: nothing crosses, and
nothing is paid.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

__all__ = [
    "TRACE_KEYS",
    "TracePropagator",
    "carried",
    "joined_trace",
    "set_trace_propagator",
    "trace_carrier",
]


class TracePropagator(Protocol):
    """Writes the current trace context into a carrier and makes a carried one current."""

    def inject(self) -> dict[str, str]:
        """The current trace context as a carrier; ``{}`` when no trace is current."""
        ...

    def attach(self, carrier: Mapping[str, str]) -> object:
        """Make the carrier's context current; a token for :meth:`detach`. A propagator may
        keep a trace that is current already (a parent the transport propagated itself)."""
        ...

    def detach(self, token: object) -> None:
        """Undo the :meth:`attach` that returned ``token``."""
        ...


_propagator: TracePropagator | None = None


def set_trace_propagator(propagator: TracePropagator | None) -> None:
    """Install ``propagator`` for the whole process (``None``: remove it). A tracing plugin
    calls this as it is turned on and off."""
    global _propagator
    _propagator = propagator


def trace_carrier() -> dict[str, str]:
    """The current trace context to hand to work that runs elsewhere (``{}``: none)."""
    propagator = _propagator
    if propagator is None:
        return {}
    return propagator.inject()


TRACE_KEYS = ("traceparent", "tracestate")
"""The keys a carrier may hold (W3C Trace Context); others are dropped on the way in."""
_MAX_VALUE = 1024
"""The longest value kept (a ``traceparent`` is 55 characters; a ``tracestate`` at most 512)."""


def carried(carrier: Mapping[str, object] | None) -> dict[str, str]:
    """The W3C entries of an untrusted carrier (an MCP request's ``_meta``, a workflow's
    input): strings of bounded length under :data:`TRACE_KEYS`, nothing else."""
    if not isinstance(carrier, Mapping):
        return {}
    kept: dict[str, str] = {}
    for key in TRACE_KEYS:
        value = carrier.get(key)
        if isinstance(value, str) and 0 < len(value) <= _MAX_VALUE:
            kept[key] = value
    return kept


@contextmanager
def joined_trace(carrier: Mapping[str, object] | None) -> Iterator[None]:
    """Run the block in the trace ``carrier`` names (from :func:`trace_carrier`, maybe in
    another process; read with :func:`carried`, so it may come from anyone). Nothing happens
    when it names none or no propagator is installed."""
    propagator = _propagator
    entries = carried(carrier) if propagator is not None and carrier else None
    if propagator is None or not entries:
        yield
        return
    token = propagator.attach(entries)
    try:
        yield
    finally:
        propagator.detach(token)
