"""``Publishing``: where a run's events go — its session, its bus and its stream.

Every event a run publishes is applied to its session's reducers, published on its bus, and
handed to its ``observer`` when one is set (a streaming driver's, turning events into stream
events). An event nobody would see — no observer, no reducer, no subscriber — need not be
built: :meth:`Publishing._observed` says whether anyone would (``PromptRendered`` is built only
then).

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_PublishingRun`` names what these methods read of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from affordance.runtime.record.bus import EventBus
from affordance.runtime.record.session import Session

__all__ = ["Publishing"]


class _PublishingRun(Protocol):
    """The evaluation as its events see it."""

    session: Session
    bus: EventBus
    observer: Callable[[object], None] | None

    def _emit(self, event: object) -> None: ...


class Publishing:
    """An evaluation's events: published to whoever watches the run, built only if anyone
    does."""

    __slots__ = ()

    def _observed(self: _PublishingRun, event_type: type[Any]) -> bool:
        """Whether anyone would see an event of ``event_type``: events nobody records or
        subscribes to are not built at all."""
        return (
            self.observer is not None
            or self.session.records(event_type)
            or self.bus.wants(event_type)
        )

    def publish(self: _PublishingRun, event: object) -> None:
        """Publish ``event`` as the run's own: to its session, its bus and its stream."""
        self._emit(event)

    def _emit(self: _PublishingRun, event: object) -> None:
        self.session.apply(event)
        self.bus.publish(event)
        observer = self.observer
        if observer is not None:
            observer(event)
