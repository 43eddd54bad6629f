"""The streaming chat endpoint's answer: a chat request run as a task, its events sent as
server-sent events, and one final event — the reply or the error.

:func:`open_chat_stream` starts ``ChatService.chat`` in a task and waits for ``ChatStarted``:
until then the request can still be refused, and the refusal is raised for the app to answer
as JSON with its status, exactly as the plain endpoint does. From ``ChatStarted`` on,
:class:`ChatEventStream` (an ASGI response) sends each event as it is heard, a keep-alive
comment when nothing was said for a while, and ends with ``reply`` — exactly the body of
``POST /api/v1/chat`` — or ``error``.

A client that goes away (the server reports ``http.disconnect``, or sending fails) cancels the
task, and the response ends only once the task has: no run outlives its request. What a
cancelled request keeps is ``chat.py``'s rule: nothing of its run, except confirmed calls. A
server shutting down lets the stream go on through its grace period; a stream still running at
its end is cut off the same way, and ends with an ``error`` event ``503 shutting_down`` (see
``shutdown.py``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from affordance import (
    ConfirmationRequired,
    HostedToolActivity,
    HostedToolResult,
    RefusalDelta,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    is_declined,
)
from taskchat.api_schemas import ChatResponse
from taskchat.chat import Answer, ChatService
from taskchat.chat_errors import ChatError
from taskchat.chat_replies import ChatEvent, ChatReply, ChatStarted
from taskchat.correlation import internal_error_body, log_unhandled
from taskchat.shutdown import Shutdown

__all__ = ["KEEPALIVE", "ChatEventStream", "event_data", "open_chat_stream", "server_sent_event"]

KEEPALIVE = b": keep-alive\n\n"


def server_sent_event(event: str, data: Mapping[str, Any]) -> bytes:
    """One event on the wire: its name, and its data as one line of JSON."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {text}\n\n".encode()


def event_data(event: ChatEvent) -> dict[str, Any]:
    """The JSON an event is sent with (its name is ``event.kind``): the stable shape per kind."""
    if isinstance(event, ChatStarted):
        return {"conversation_id": event.conversation_id, "resumed": event.resumed}
    if isinstance(event, RunStarted):
        return {"run_id": event.run_id}
    if isinstance(event, (TextDelta, RefusalDelta)):
        return {"text": event.text, "turn": event.turn}
    if isinstance(event, ToolCallStarted):
        return {"call_id": event.call_id, "name": event.name, "turn": event.turn}
    if isinstance(event, ToolCallArgumentsDelta):
        return {"call_id": event.call_id, "text": event.text}
    if isinstance(event, ToolCallFinished):
        return {
            "call_id": event.call_id,
            "name": event.name,
            "success": event.success,
            "message": event.result.message,
            "declined": is_declined(event.result),
            "turn": event.turn,
        }
    if isinstance(event, ConfirmationRequired):
        return {"call_id": event.call_id, "name": event.name, "arguments": dict(event.arguments)}
    if isinstance(event, TurnFinished):
        usage = event.usage
        return {
            "turn": event.turn,
            "finish_reason": event.finish_reason,
            "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        }
    if isinstance(event, HostedToolActivity):
        return {"item_type": event.item_type, "status": event.status, "item_id": event.item_id}
    if isinstance(event, HostedToolResult):
        return {"name": event.name}
    if isinstance(event, RunFinished):
        raise TypeError("RunFinished is not sent: the final reply event takes its place")
    raise TypeError(f"no stream shape for {type(event).__name__}")


async def open_chat_stream(
    service: ChatService,
    *,
    conversation_id: str | None,
    message: str,
    confirmations: Mapping[str, Answer],
    keepalive: float,
    shutdown: Shutdown,
    scope: Scope,
) -> ChatEventStream:
    """Start the request; raise its refusal (a ``ChatError``) if it is refused before it starts
    — or ``ShuttingDownError`` if the server's shutdown grace ends before it does."""
    events: asyncio.Queue[ChatEvent | None] = asyncio.Queue()  # None: the task has ended
    task = asyncio.create_task(
        service.chat(
            conversation_id=conversation_id,
            message=message,
            confirmations=confirmations,
            listener=events.put_nowait,
        )
    )
    task.add_done_callback(lambda _: events.put_nowait(None))
    try:
        first = await shutdown.finish_or_cut_off(events.get(), scope)
    except BaseException:
        await _stop(task)
        raise
    if first is None:
        task.result()  # refused: the app answers the ChatError as JSON with its status
        raise RuntimeError("the chat request ended before it started")
    return ChatEventStream(task, events, first, keepalive=keepalive, shutdown=shutdown)


class ChatEventStream(Response):
    """``text/event-stream``: the events of one running chat request, then its end."""

    media_type = "text/event-stream"

    def __init__(
        self,
        task: asyncio.Task[ChatReply],
        events: asyncio.Queue[ChatEvent | None],
        first: ChatEvent,
        *,
        keepalive: float,
        shutdown: Shutdown,
    ) -> None:
        # Not Response.__init__: there is no body to render up front.
        self.status_code = 200
        self.background = None
        self.init_headers({"cache-control": "no-cache", "x-accel-buffering": "no"})
        self._task = task
        self._events = events
        self._first = first
        self._keepalive = keepalive
        self._shutdown = shutdown
        self._cut_off = False  # the server's shutdown grace ended while the task ran

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watcher = asyncio.create_task(_client_gone(receive))
        watcher.add_done_callback(self._on_client_gone)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            await self._send_events(scope, send)
        except OSError:
            pass  # the client went away while we were sending (how ASGI 2.4 servers say it)
        finally:
            watcher.cancel()
            await _stop(self._task)

    def _on_client_gone(self, watcher: asyncio.Task[None]) -> None:
        if not watcher.cancelled():
            self._task.cancel()

    async def _send_events(self, scope: Scope, send: Send) -> None:
        async def body(chunk: bytes) -> None:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})

        await body(server_sent_event(self._first.kind, event_data(self._first)))
        getter: asyncio.Future[ChatEvent | None] | None = None
        grace_over = asyncio.ensure_future(self._shutdown.grace_over())
        try:
            ended = False
            while not ended:
                if getter is None:
                    getter = asyncio.ensure_future(self._events.get())
                watched: set[asyncio.Future[Any]] = {getter}
                if not self._cut_off:
                    watched.add(grace_over)
                done, _ = await asyncio.wait(
                    watched, timeout=self._keepalive, return_when=asyncio.FIRST_COMPLETED
                )
                if grace_over in done:
                    self._cut_off = True
                    self._task.cancel()  # the queue's end says when it has stopped
                if getter not in done:
                    if not done:
                        await body(KEEPALIVE)
                    continue
                ready, getter = [getter.result()], None
                while not self._events.empty():  # what is already there goes in one write
                    ready.append(self._events.get_nowait())
                ended = ready[-1] is None
                chunk = b"".join(
                    server_sent_event(event.kind, event_data(event))
                    for event in ready
                    if event is not None
                )
                if chunk:
                    await body(chunk)
        finally:
            grace_over.cancel()
            if getter is not None:
                getter.cancel()
        final = self._final(scope)
        if final is not None:
            await body(final)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _final(self, scope: Scope) -> bytes | None:
        """The last event: ``reply`` or ``error``; none when the client is gone."""
        if self._task.cancelled():
            if not self._cut_off:
                return None  # the client is gone: there is no one to tell
            cut_off = self._shutdown.cut_off(scope)
            return server_sent_event("error", {"status": cut_off.status, **cut_off.body()})
        error = self._task.exception()
        if error is None:
            reply = ChatResponse.from_reply(self._task.result())
            return server_sent_event("reply", reply.model_dump(mode="json"))
        if isinstance(error, ChatError):
            return server_sent_event("error", {"status": error.status, **error.body()})
        log_unhandled(error, scope)
        return server_sent_event("error", {"status": 500, **internal_error_body()})


async def _client_gone(receive: Receive) -> None:
    """Return when the server reports that the client disconnected."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def _stop(task: asyncio.Task[ChatReply]) -> None:
    """Cancel the chat task if it still runs, and wait until it has ended."""
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved: its failure was reported, or no one is left to tell
