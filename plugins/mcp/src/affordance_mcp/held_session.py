"""One open MCP session and the one task that holds it, on the loop it lives on (its home).

An MCP session is a tree of anyio tasks and cancel scopes: the task that enters it must be the
one that leaves it. :func:`open_session` starts that task (the holder), which enters the
session, follows the server's tool-list changes and waits to be told to leave; the session is
handed back once the server has answered ``initialize``, within ``connect_timeout`` (a server
that never answers costs that long and an :class:`MCPConnectError`, not a hang).
:meth:`HeldSession.shut` tells the holder to leave and waits for it;
:meth:`HeldSession.release` lets a dead session's holder end on its own loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types
from mcp import Client
from mcp.client.session import MessageHandlerFnT

from affordance_mcp.changes import following_tool_changes
from affordance_mcp.errors import MCPConnectError
from affordance_mcp.watch import Watch, watched

__all__ = ["HeldSession", "TransportFactory", "loop_of_this_thread", "open_session"]

logger = logging.getLogger("affordance.mcp")

_CLOSE_TIMEOUT = 8.0
"""The most a close waits for the session to wind down (the SDK's stdio shutdown escalates from
closing stdin to SIGTERM to SIGKILL within about 6 s)."""

TransportFactory = Callable[[], AbstractAsyncContextManager[Any]]


class HeldSession:
    """An open session: its ``client``, the ``watch`` on its transport's read side, and the
    ``home`` loop its holder task runs on."""

    __slots__ = ("_holder", "_stop", "client", "home", "watch")

    def __init__(
        self,
        client: Client,
        watch: Watch,
        stop: asyncio.Event,
        holder: asyncio.Task[None],
        home: asyncio.AbstractEventLoop,
    ) -> None:
        self.client = client
        self.watch = watch
        self.home = home
        self._stop = stop
        self._holder = holder

    async def shut(self) -> None:
        """Leave the session and wait (at most about 8 s) for it to wind down, then cut it
        off; run on its home loop."""
        holder = self._holder
        self._stop.set()
        _, pending = await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT)
        if pending:  # the session would not wind down: cut it off
            holder.cancel()
            await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT)

    def release(self) -> None:
        """Let the holder end on its own loop (its server gone, its loop closed) without
        waiting for it."""
        home = self.home
        if home.is_closed():
            return
        if home is loop_of_this_thread():
            self._stop.set()
        else:
            home.call_soon_threadsafe(self._stop.set)


async def open_session(
    transport: TransportFactory,
    *,
    label: str,
    connect_timeout: float,
    on_message: MessageHandlerFnT,
    on_tools_changed: Callable[[], None],
) -> HeldSession:
    """A session to the server ``transport`` reaches, held by a task on the running loop.
    ``on_message`` gets the server's notifications; ``on_tools_changed`` is called (on this
    loop) when a 2026-07-28 connection hears that its tools changed."""
    ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    watch = Watch()
    holder = asyncio.create_task(
        _hold(transport, label, ready, stop, watch, on_message, on_tools_changed),
        name=f"mcp {label}",
    )
    try:
        client = await asyncio.wait_for(asyncio.shield(ready), connect_timeout)
    except BaseException as error:
        stop.set()
        holder.cancel()
        await asyncio.wait({holder}, timeout=_CLOSE_TIMEOUT)
        if isinstance(error, (asyncio.TimeoutError, TimeoutError)):
            raise MCPConnectError(
                f"MCP server {label!r} did not finish connecting within {connect_timeout:g} s"
            ) from None
        if isinstance(error, Exception):
            raise MCPConnectError(
                f"could not connect to MCP server {label!r}: {_describe(error)}"
            ) from error
        raise
    return HeldSession(client, watch, stop, holder, asyncio.get_running_loop())


async def _hold(
    transport: TransportFactory,
    label: str,
    ready: asyncio.Future[Client],
    stop: asyncio.Event,
    watch: Watch,
    on_message: MessageHandlerFnT,
    on_tools_changed: Callable[[], None],
) -> None:
    """The one task that enters and leaves the session."""
    try:
        async with Client(
            watched(transport(), watch),
            message_handler=on_message,
            client_info=mcp_types.Implementation(name="affordance", version="0.1.0"),
        ) as client:
            ready.set_result(client)
            async with following_tool_changes(client, on_tools_changed, watch):
                await stop.wait()
    except BaseException as error:  # noqa: BLE001 - the holder never lets anything escape
        if not ready.done():
            if isinstance(error, Exception):
                ready.set_exception(error)
            else:
                ready.cancel()
        elif not isinstance(error, asyncio.CancelledError):
            logger.debug("MCP session %r ended: %s", label, _describe(error))
    finally:
        watch.closed = True


def loop_of_this_thread() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _describe(error: BaseException) -> str:
    """The innermost message of an error (task groups wrap the SDK's in exception groups)."""
    inner = getattr(error, "exceptions", None)
    while isinstance(inner, tuple) and inner:
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
