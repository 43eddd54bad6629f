"""The events of a run's requests to its model, for whoever watches them (tracing, metrics).

A run builds them only when its bus or its session wants one of
``affordance.runtime.record.events.REQUEST_EVENTS`` (their ``watches_requests``):
:meth:`RequestWatch.of` answers ``None`` otherwise, and the drivers then send as they always
do, paying nothing. Watched, the drivers
time each request — to the whole answer, and for a stream to its first piece — and publish
``EvaluationStarted``, ``ModelRequestSent``, ``ModelAnswered`` or ``ModelRequestFailed``, and
``EvaluationFailed`` when the run raises.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from affordance.runtime.model.connection import model_name_of
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.runtime.record.events import (
    EvaluationFailed,
    EvaluationStarted,
    ModelAnswered,
    ModelRequestFailed,
    ModelRequestSent,
)

if TYPE_CHECKING:
    from affordance.runtime.loop.evaluation import Evaluation

__all__ = ["RequestWatch"]


class RequestWatch:
    """Publishes one run's request events (see the module)."""

    __slots__ = ("evaluation", "model", "provider")

    def __init__(self, evaluation: Evaluation[Any]) -> None:
        connection = evaluation.adapter.connection
        self.evaluation = evaluation
        self.provider = connection.name
        self.model = model_name_of(connection)

    @staticmethod
    def of(evaluation: Evaluation[Any]) -> RequestWatch | None:
        """A watch for ``evaluation`` if anyone would see its request events, else ``None``
        (two flags read: their bus's and their session's ``watches_requests``)."""
        if evaluation.bus.watches_requests or evaluation.session.watches_requests:
            return RequestWatch(evaluation)
        return None

    def started(self) -> None:
        evaluation = self.evaluation
        resumed = evaluation.has_transcript()  # a new run has said nothing yet
        evaluation.publish(
            EvaluationStarted(
                evaluation.prompt.name, evaluation.run_id, self.provider, self.model, resumed
            )
        )

    def run_failed(self, error: BaseException) -> None:
        evaluation = self.evaluation
        evaluation.publish(EvaluationFailed(evaluation.prompt.name, evaluation.run_id, error))

    def sending(self, request: ModelRequest, *, streamed: bool) -> float:
        """Publish that ``request`` goes out; the time it did (for :meth:`answered`)."""
        self.evaluation.publish(
            ModelRequestSent(
                request.prompt_name,
                request.run_id,
                request.turn,
                self.provider,
                self.model,
                streamed,
            )
        )
        return time.perf_counter()

    def answered(
        self, request: ModelRequest, turn: ProviderTurn, sent: float, first: float | None = None
    ) -> None:
        now = time.perf_counter()
        self.evaluation.publish(
            ModelAnswered(
                request.prompt_name,
                request.run_id,
                request.turn,
                turn.provider or self.provider,
                turn.model or self.model,
                turn.response_id,
                turn.usage,
                turn.finish_reason,
                now - sent,
                None if first is None else first - sent,
            )
        )

    def failed(self, request: ModelRequest, error: BaseException, sent: float) -> None:
        self.evaluation.publish(
            ModelRequestFailed(
                request.prompt_name,
                request.run_id,
                request.turn,
                self.provider,
                self.model,
                error,
                time.perf_counter() - sent,
            )
        )

    def send(
        self, send: Callable[[ModelRequest], ProviderTurn], request: ModelRequest
    ) -> ProviderTurn:
        """``send(request)``, timed and published."""
        sent = self.sending(request, streamed=False)
        try:
            turn = send(request)
        except BaseException as error:
            self.failed(request, error, sent)
            raise
        self.answered(request, turn, sent)
        return turn

    async def asend(
        self, asend: Callable[[ModelRequest], Awaitable[ProviderTurn]], request: ModelRequest
    ) -> ProviderTurn:
        """``await asend(request)``, timed and published."""
        sent = self.sending(request, streamed=False)
        try:
            turn = await asend(request)
        except BaseException as error:
            self.failed(request, error, sent)
            raise
        self.answered(request, turn, sent)
        return turn
