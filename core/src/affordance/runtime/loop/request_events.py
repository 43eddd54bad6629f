"""The events of a run's requests to its model, for whoever watches them (tracing, metrics).

A run builds them only when its bus or its session wants one of
``affordance.runtime.record.events.REQUEST_EVENTS`` (their ``watches_requests``):
:meth:`RequestWatch.of` answers ``None`` otherwise, and the drivers then send as they always
do, paying nothing. Watched, the drivers time each request — to the whole answer, and for a
stream to its first piece — and publish ``EvaluationStarted``, ``ModelRequestSent``,
``ModelAnswered`` or ``ModelRequestFailed``, and ``EvaluationFailed`` when the run raises.

``ModelRequestSent`` is published in a copy of the caller's context, and the request is sent
in that copy (for a stream: opened, and for a sync stream every piece pulled; an async stream's
first piece is awaited in a task of its own, which runs in a copy of it): what a handler sets
there — a tracer's current span — holds while the request goes out, so HTTP client spans nest
under it, and is gone afterwards.

:class:`RequestEvents` is the request half alone, for a plugin that sends one request outside a
run (``affordance-temporal``'s model activity).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from affordance.runtime.model.connection import endpoint_of, model_name_of
from affordance.runtime.model.deltas import Delta
from affordance.runtime.model.turn import ModelRequest, ProviderTurn
from affordance.runtime.record.events import (
    EvaluationFailed,
    EvaluationStarted,
    ModelAnswered,
    ModelRequestFailed,
    ModelRequestSent,
)
from affordance.runtime.record.nesting import outer_call

if TYPE_CHECKING:
    from affordance.runtime.loop.evaluation import Evaluation

__all__ = ["RequestEvents", "RequestWatch"]


class RequestEvents:
    """Publishes the events of requests to one connection through ``publish``: ``provider``
    and ``model`` name it, ``server`` is its base URL (``None``: unknown)."""

    __slots__ = ("model", "provider", "publish", "server")

    def __init__(
        self,
        publish: Callable[[object], None],
        provider: str,
        model: str | None,
        server: str | None = None,
    ) -> None:
        self.publish = publish
        self.provider = provider
        self.model = model
        self.server = server

    @classmethod
    def for_connection(
        cls, publish: Callable[[object], None], connection: object, *, asynchronous: bool
    ) -> RequestEvents:
        """The events of requests to ``connection`` (a ``Model``), sent with its async client
        if ``asynchronous``: named by its ``name``, model and base URL as a run names them."""
        return cls(
            publish,
            str(getattr(connection, "name", type(connection).__name__)),
            model_name_of(connection),
            endpoint_of(connection, asynchronous=asynchronous),
        )

    def sending(self, request: ModelRequest, *, streamed: bool) -> float:
        """Publish that ``request`` goes out; the time it did (for :meth:`answered`). Call it in
        the context the request is sent in (:meth:`send` and the others do)."""
        self.publish(
            ModelRequestSent(
                request.prompt_name,
                request.run_id,
                request.turn,
                self.provider,
                self.model,
                streamed,
                self.server,
            )
        )
        return time.perf_counter()

    def answered(
        self, request: ModelRequest, turn: ProviderTurn, sent: float, first: float | None = None
    ) -> None:
        now = time.perf_counter()
        self.publish(
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
                turn.response_model,
            )
        )

    def failed(self, request: ModelRequest, error: BaseException, sent: float) -> None:
        self.publish(
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
        """``send(request)`` in a context of its own, timed and published."""
        context = contextvars.copy_context()
        sent = context.run(self.sending, request, streamed=False)
        try:
            turn = context.run(send, request)
        except BaseException as error:
            self.failed(request, error, sent)
            raise
        self.answered(request, turn, sent)
        return turn

    async def asend(
        self, asend: Callable[[ModelRequest], Awaitable[ProviderTurn]], request: ModelRequest
    ) -> ProviderTurn:
        """``await asend(request)`` as a task of its own (a copy of the context it is published
        in), timed and published. Cancelling the caller cancels the task."""
        import asyncio

        context = contextvars.copy_context()
        sent = context.run(self.sending, request, streamed=False)
        try:
            turn: ProviderTurn = await context.run(asyncio.ensure_future, asend(request))
        except BaseException as error:
            self.failed(request, error, sent)
            raise
        self.answered(request, turn, sent)
        return turn

    def stream(
        self, send_stream: Callable[[ModelRequest], Iterator[Delta]], request: ModelRequest
    ) -> tuple[float, Iterator[Delta]]:
        """Open ``send_stream(request)`` in a context of its own, its pieces pulled there; the
        time it was sent and the pieces. The caller times the first piece and publishes
        :meth:`answered` or :meth:`failed`."""
        context = contextvars.copy_context()
        sent = context.run(self.sending, request, streamed=True)
        return sent, _pulled_in(context, context.run(send_stream, request))

    def astream(
        self, send_stream: Callable[[ModelRequest], AsyncIterator[Delta]], request: ModelRequest
    ) -> tuple[float, AsyncIterator[Delta]]:
        """The async form of :meth:`stream`: the first piece is awaited in a task running in the
        request's context (where the request goes out), the rest as they come."""
        context = contextvars.copy_context()
        sent = context.run(self.sending, request, streamed=True)
        return sent, _apulled_in(context, context.run(send_stream, request))


def _pulled_in(context: contextvars.Context, deltas: Iterator[Delta]) -> Iterator[Delta]:
    try:
        while True:
            try:
                delta = context.run(next, deltas)
            except StopIteration:
                return
            yield delta
    finally:
        close = getattr(deltas, "close", None)
        if close is not None:
            context.run(close)


async def _apulled_in(
    context: contextvars.Context, deltas: AsyncIterator[Delta]
) -> AsyncIterator[Delta]:
    import asyncio

    try:
        try:
            first: Delta = await context.run(asyncio.ensure_future, deltas.__anext__())
        except StopAsyncIteration:
            return
        yield first
        async for delta in deltas:
            yield delta
    finally:
        aclose = getattr(deltas, "aclose", None)
        if aclose is not None:
            await aclose()


class RequestWatch(RequestEvents):
    """Publishes one run's request events (see the module), and its start and failure."""

    __slots__ = ("evaluation",)

    def __init__(self, evaluation: Evaluation[Any], *, asynchronous: bool = False) -> None:
        connection = evaluation.adapter.connection
        super().__init__(
            evaluation.publish,
            connection.name,
            model_name_of(connection),
            endpoint_of(connection, asynchronous=asynchronous),
        )
        self.evaluation = evaluation

    @staticmethod
    def of(evaluation: Evaluation[Any], *, asynchronous: bool = False) -> RequestWatch | None:
        """A watch for ``evaluation`` (sending with its async client if ``asynchronous``) if
        anyone would see its request events, else ``None`` (two flags read: their bus's and
        their session's ``watches_requests``)."""
        if evaluation.bus.watches_requests or evaluation.session.watches_requests:
            return RequestWatch(evaluation, asynchronous=asynchronous)
        return None

    def started(self) -> None:
        evaluation = self.evaluation
        resumed = evaluation.has_transcript()  # a new run has said nothing yet
        parent_run_id, parent_call_id = outer_call() or (None, None)
        evaluation.publish(
            EvaluationStarted(
                evaluation.prompt.name,
                evaluation.run_id,
                self.provider,
                self.model,
                resumed,
                parent_run_id,
                parent_call_id,
            )
        )

    def run_failed(self, error: BaseException) -> None:
        evaluation = self.evaluation
        evaluation.publish(EvaluationFailed(evaluation.prompt.name, evaluation.run_id, error))
