"""In-process events: what happened during an evaluation, published on an :class:`EventBus`.

Handlers run synchronously in publish order. A handler that raises is logged and skipped; it
never breaks the evaluation or the other handlers. Every session keeps the ``ToolInvoked`` and
``PromptExecuted`` events of its runs (:func:`~affordance.runtime.record.session.kept_by_default`).
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
    "PromptExecuted",
    "PromptRendered",
    "ToolCallDenied",
    "ToolInvoked",
]

_log = logging.getLogger("affordance.events")

EventT = TypeVar("EventT")
Handler = Callable[[Any], None]


class EventBus:
    """Type-keyed publish/subscribe; subscribing to ``object`` receives every event."""

    __slots__ = ("_handlers", "_lock", "watches_requests")

    def __init__(self) -> None:
        self._handlers: dict[type[Any], tuple[Handler, ...]] = {}
        self._lock = threading.Lock()
        self.watches_requests = False
        """A handler would receive a run's request events (``REQUEST_EVENTS``): runs build
        them only then. Stays true once set."""

    def subscribe(self, event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        with self._lock:
            self._handlers[event_type] = (*self._handlers.get(event_type, ()), handler)
            if event_type is object or event_type in _WATCHED:
                self.watches_requests = True

    def unsubscribe(self, event_type: type[EventT], handler: Callable[[EventT], None]) -> None:
        with self._lock:
            remaining = tuple(h for h in self._handlers.get(event_type, ()) if h != handler)
            self._handlers[event_type] = remaining

    def has_subscribers(self) -> bool:
        return any(self._handlers.values())

    def wants(self, event_type: type[Any]) -> bool:
        """Whether an event of ``event_type`` would reach a handler (so it is worth building)."""
        handlers = self._handlers
        return bool(handlers) and bool(handlers.get(event_type) or handlers.get(object))

    def publish(self, event: object) -> None:
        handlers = self._handlers
        if not handlers:
            return
        for handler in (*handlers.get(type(event), ()), *handlers.get(object, ())):
            try:
                handler(event)
            except Exception:  # noqa: BLE001 - one bad subscriber must not break the run
                _log.exception(
                    "event handler failed",
                    extra={"affordance_event": type(event).__name__},
                )


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
    """A request of turn ``turn`` is going to the model (``streamed``: as a stream)."""

    prompt_name: str
    run_id: str
    turn: int
    provider: str
    model: str | None
    streamed: bool = False


@watched_event
@fast_init
@dataclass(frozen=True, slots=True)
class ModelAnswered:
    """The model answered turn ``turn``: ``provider``/``model`` who answered (a fallback's),
    ``duration`` seconds from sending to the whole answer, ``first_delta`` to the first piece
    of a streamed one (``None`` for a plain request)."""

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
