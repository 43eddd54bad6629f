"""Which tool call a run is nested in, for the events that start it.

A run started inside a tool call — a :func:`~affordance.runtime.calls.prompt_tool.PromptTool`'s,
or a handler's own ``context.adapter.evaluate(...)`` under ``with context.nesting():`` — names
that call in its ``EvaluationStarted`` (``parent_run_id``, ``parent_call_id``), so whoever
watches the outer bus can place the nested run's events under the call that ran them.

It is held in a context variable, set only around the nested run: a run reads it once, and only
when its request events are watched (``RequestWatch``), so an unwatched run pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["nested_in", "outer_call"]

_OUTER_CALL: ContextVar[tuple[str, str] | None] = ContextVar("affordance_outer_call", default=None)


@contextmanager
def nested_in(run_id: str, call_id: str) -> Iterator[None]:
    """Runs started inside the block are nested in call ``call_id`` of run ``run_id``."""
    token = _OUTER_CALL.set((run_id, call_id))
    try:
        yield
    finally:
        _OUTER_CALL.reset(token)


def outer_call() -> tuple[str, str] | None:
    """The ``(run_id, call_id)`` of the call a run starting here is nested in, if any."""
    return _OUTER_CALL.get()
