"""What ``stream()`` and ``astream()`` return: the run's stream events, to iterate in a ``with``.

:class:`EventStream` and :class:`AsyncEventStream` wrap the iterator the streaming drivers
(``affordance.runtime.loop.streaming``) produce; they keep the final response once
``RunFinished`` passes, and closing them stops the run and closes the provider's stream.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any

from affordance.runtime.record.response import PromptResponse
from affordance.runtime.record.stream_events import RunFinished, StreamEvent

__all__ = ["AsyncEventStream", "EventStream"]


class EventStream:
    """``with adapter.stream(prompt) as events: for event in events: ...``

    Iterating yields :data:`~affordance.runtime.record.stream_events.StreamEvent` values, the last
    being ``RunFinished``; :attr:`response` holds its response once seen. Leaving the ``with``
    block (or :meth:`close`) stops the run and closes the provider's stream.
    """

    def __init__(self, events: Iterator[StreamEvent]) -> None:
        self._events = events
        self.response: PromptResponse[Any] | None = None

    def __enter__(self) -> EventStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> StreamEvent:
        event = next(self._events)
        if isinstance(event, RunFinished):
            self.response = event.response
        return event

    def close(self) -> None:
        close = getattr(self._events, "close", None)
        if close is not None:
            close()


class AsyncEventStream:
    """``async with adapter.astream(prompt) as events: async for event in events: ...``

    Breaking out of the loop inside ``async with`` (or :meth:`aclose`) stops the run and closes
    the provider's stream before the block is left.
    """

    def __init__(self, events: AsyncIterator[StreamEvent]) -> None:
        self._events = events
        self.response: PromptResponse[Any] | None = None

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> StreamEvent:
        event = await self._events.__anext__()
        if isinstance(event, RunFinished):
            self.response = event.response
        return event

    async def aclose(self) -> None:
        aclose = getattr(self._events, "aclose", None)
        if aclose is not None:
            await aclose()
