"""``Session``: typed state built from events by reducers, shared by the runs that use it.

A slice is a tuple of values of one type. Reducers turn (slice, event) into the next slice. By
default a session keeps every event of its own runs whose type is marked
:func:`kept_by_default` (``ToolInvoked`` and ``PromptExecuted``); register more reducers for
application state. Updates take a lock, so one session may be used from several threads or
tasks.
"""

from __future__ import annotations

from _thread import RLock  # threading.RLock is a Python wrapper around this one
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from affordance._ids import new_id

if TYPE_CHECKING:
    from affordance.prompt.paths import SectionPath
    from affordance.prompt.section import SectionVisibility
    from affordance.runtime.model.turn import Usage

__all__ = [
    "Reducer",
    "Session",
    "SuspendedRun",
    "append",
    "kept_by_default",
    "replace_latest",
    "upsert_by",
]

S = TypeVar("S")
E = TypeVar("E")
Reducer = Callable[[tuple[S, ...], E], tuple[S, ...]]
EventT = TypeVar("EventT", bound=type[Any])

_KEPT_BY_DEFAULT: dict[type[Any], tuple[tuple[type[Any], Reducer[Any, Any]], ...]] = {}
"""The reducers every session starts with (:func:`kept_by_default`). Replaced, never changed in
place: sessions share it until one registers a reducer of its own."""


class SuspendedRun(Protocol):
    """What a session needs of a run it keeps until its pending calls are answered (the loop's
    ``Evaluation``)."""

    def pending_call_ids(self) -> tuple[str, ...]: ...


_WATCHED: set[type[Any]] = set()


def watched_event(event_type: EventT) -> EventT:
    """Mark an event type a run builds only when watched (its request events): a session
    recording one says so in :attr:`Session.watches_requests`, read once per run."""
    _WATCHED.add(event_type)
    return event_type


_HANDLER_EVENTS: set[type[Any]] = set()


def handler_event(event_type: EventT) -> EventT:
    """Mark an event type of a handler at work, built only when watched: a session recording
    one says so in :attr:`Session.watches_handlers`, read once per call."""
    _HANDLER_EVENTS.add(event_type)
    return event_type


def kept_by_default(event_type: EventT) -> EventT:
    """Mark an event type as one every session keeps (appended to the slice of its own type),
    unless made with ``record_events=False``. The events module marks its own; the mark keeps
    this module from importing the events, whose ``PromptExecuted`` holds a response that
    holds a session."""
    global _KEPT_BY_DEFAULT
    _KEPT_BY_DEFAULT = {**_KEPT_BY_DEFAULT, event_type: ((event_type, append),)}
    return event_type


def append(current: tuple[Any, ...], event: Any) -> tuple[Any, ...]:
    """Add the event itself to the slice."""
    return (*current, event)


def replace_latest(current: tuple[Any, ...], event: Any) -> tuple[Any, ...]:
    """Keep only the newest event."""
    return (event,)


def upsert_by(key: Callable[[Any], object]) -> Reducer[Any, Any]:
    """Replace the entry with the same key as the event, or add it."""

    def reduce(current: tuple[Any, ...], event: Any) -> tuple[Any, ...]:
        wanted = key(event)
        kept = tuple(item for item in current if key(item) != wanted)
        return (*kept, event)

    return reduce


class _Appended:
    """A slice that only :func:`append` has grown since it was last read: its values in a list
    (adding one is O(1)) and, once read, their tuple (built once per change). A long session
    would otherwise copy every event it holds for each one it adds."""

    __slots__ = ("frozen", "items")

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.frozen: tuple[Any, ...] | None = None

    def add(self, event: Any) -> None:
        self.items.append(event)
        self.frozen = None

    def values(self) -> tuple[Any, ...]:
        frozen = self.frozen
        if frozen is None:
            frozen = self.frozen = tuple(self.items)
        return frozen


class Session:
    """State that outlives one evaluation: slices, opened sections, pending confirmations."""

    watches_requests = False  # a reducer records a run's request events (see watched_event)
    watches_handlers = False  # a reducer records a handler's events (see handler_event)
    nested_usage: dict[str, list[tuple[str, Usage]]] | None = None
    """Usage tool calls spent on nested runs, by the id of the run that is to count it: see
    :meth:`add_usage` (``None`` until a call adds some)."""

    def __init__(self, *, session_id: str | None = None, record_events: bool = True) -> None:
        self.session_id = session_id or new_id()
        self._lock = RLock()
        self._slices: dict[type[Any], tuple[Any, ...] | _Appended] = {}
        # replaced, never changed in place, so a new session shares the default reducers
        self._reducers: Mapping[type[Any], tuple[tuple[type[Any], Reducer[Any, Any]], ...]] = (
            _KEPT_BY_DEFAULT if record_events else {}
        )
        self._suspended: dict[str, SuspendedRun] = {}
        self._stopped: dict[str, object] = {}
        self._visibility: dict[SectionPath, SectionVisibility] = {}

    def __repr__(self) -> str:
        return f"Session(session_id={self.session_id!r})"

    def register_reducer(
        self, event_type: type[E], slice_type: type[S], reducer: Reducer[S, E]
    ) -> None:
        """Run ``reducer`` on the ``slice_type`` slice for every ``event_type`` event applied."""
        with self._lock:
            registered = (*self._reducers.get(event_type, ()), (slice_type, reducer))
            self._reducers = {**self._reducers, event_type: registered}
            if event_type in _WATCHED:
                self.watches_requests = True
            if event_type in _HANDLER_EVENTS:
                self.watches_handlers = True

    def apply(self, event: object) -> None:
        """Feed one event to the reducers registered for its type."""
        reducers = self._reducers.get(type(event))
        if not reducers:
            return
        with self._lock:
            slices = self._slices
            for slice_type, reducer in reducers:
                current = slices.get(slice_type, ())
                if reducer is append:  # the common case, in O(1)
                    if not current:  # a first value: a tuple of one, until a second comes
                        slices[slice_type] = (event,)
                    elif isinstance(current, _Appended):
                        current.add(event)
                    else:  # a second value: from now on, a list grown in place
                        slices[slice_type] = _Appended([*current, event])
                    continue
                if isinstance(current, _Appended):
                    current = current.values()
                slices[slice_type] = reducer(current, event)

    def records(self, event_type: type[Any]) -> bool:
        """Whether a reducer is registered for ``event_type``."""
        return event_type in self._reducers

    def slice(self, slice_type: type[S]) -> tuple[S, ...]:
        """The current values of a slice (empty if nothing was recorded)."""
        current = self._slices.get(slice_type, ())
        if isinstance(current, _Appended):
            with self._lock:
                return current.values()
        return current

    def seed(self, slice_type: type[S], values: tuple[S, ...]) -> None:
        """Set a slice directly, e.g. to restore saved state."""
        with self._lock:
            self._slices[slice_type] = tuple(values)

    def clear(self, slice_type: type[Any] | None = None) -> None:
        with self._lock:
            if slice_type is None:
                self._slices.clear()
            else:
                self._slices.pop(slice_type, None)

    # -- visibility opened by the model, remembered across evaluations ---------------------

    def visibility_overrides(self) -> dict[SectionPath, SectionVisibility]:
        """The sections opened so far, in a new dict (the caller's own)."""
        return dict(self._visibility) if self._visibility else {}

    def open_sections(self, overrides: Mapping[SectionPath, SectionVisibility]) -> None:
        with self._lock:
            self._visibility.update(overrides)

    # -- runs suspended until destructive calls are confirmed ------------------------------

    def suspend(self, run: SuspendedRun) -> tuple[str, ...]:
        """Keep ``run`` until its pending calls are answered. An answer names a call by its id,
        so an id already waiting in another run of this session is never taken over: those ids
        are returned and ``run`` is not kept (its caller refuses to suspend)."""
        with self._lock:
            call_ids = run.pending_call_ids()
            taken = tuple(c for c in call_ids if self._suspended.get(c, run) is not run)
            if not taken:
                for call_id in call_ids:
                    self._suspended[call_id] = run
            return taken

    def suspended_runs(self, call_ids: Iterable[str]) -> tuple[SuspendedRun, ...]:
        """The suspended runs any of ``call_ids`` belong to (several if they are mixed up)."""
        with self._lock:
            runs = {id(run): run for cid in call_ids if (run := self._suspended.get(cid))}
        return tuple(runs.values())

    def release(self, run: SuspendedRun) -> None:
        with self._lock:
            for call_id in [cid for cid, r in self._suspended.items() if r is run]:
                del self._suspended[call_id]

    def pending_call_ids(self) -> tuple[str, ...]:
        return tuple(self._suspended)

    # -- usage tool calls spent on nested runs, until their run counts it ------------------

    def add_usage(self, run_id: str, usage: Usage, provider: str) -> None:
        """Keep ``usage``, spent by ``provider`` on a nested run inside a call of run
        ``run_id``, for that run to count (``ToolContext.add_usage`` calls this)."""
        with self._lock:
            if self.nested_usage is None:
                self.nested_usage = {}
            self.nested_usage.setdefault(run_id, []).append((provider, usage))

    def take_usage(self, run_id: str) -> list[tuple[str, Usage]]:
        """The nested usage kept for run ``run_id`` since the last take (usually none)."""
        if not self.nested_usage:
            return []
        with self._lock:
            return self.nested_usage.pop(run_id, []) if self.nested_usage else []

    # -- runs stopped by a usage limit, until resumed with a higher one -------------------

    def keep_stopped(self, run_id: str, run: object) -> None:
        """Keep ``run``, stopped by a usage limit, to be resumed by its id."""
        with self._lock:
            self._stopped[run_id] = run

    def stopped_run(self, run_id: str) -> object | None:
        """The run a usage limit stopped with ``run_id``, if this session keeps one."""
        with self._lock:
            return self._stopped.get(run_id)

    def release_stopped(self, run_id: str) -> None:
        with self._lock:
            self._stopped.pop(run_id, None)
