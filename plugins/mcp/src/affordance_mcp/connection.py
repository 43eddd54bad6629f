"""``MCPConnection``: one MCP server, connected on demand, reconnected after it dies.

The session is held open by one task on the MCP loop (:mod:`affordance_mcp.loop`; the task is
:mod:`affordance_mcp.held_session`'s): connect and close are requests to that task, so they are
safe from any thread or task and never raise anyio's "cancel scope in a different task". Each
connect is bounded (``connect_timeout``); a server that never answers ``initialize`` costs that
long and a clear :class:`MCPConnectError`, not a hang.

The transport's read side is watched: once the server is gone (its process died, its stream
ended) the connection knows it *before* the next request, and that request reconnects first,
safely, since the dead server never saw it. A request that was already in flight when the
server died may have run: :meth:`MCPConnection.call` raises :class:`ServerGoneError` for it,
and the tool layer decides whether to replay.

The tool list is fetched once and kept until the server says it changed
(``notifications/tools/list_changed``, or a ``subscriptions/listen`` event on 2026-07-28
connections) or the connection is renewed.

A call carries the caller's trace context (core's ``trace_carrier()``: the call's
``execute_tool`` span when a tracing plugin is on) in its ``params._meta`` as W3C
``traceparent``/``tracestate``, the keys MCP reserves for it (SEP-414), so the server's work
joins the caller's trace; with no tracing plugin the request is what it was.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

import mcp_types
from mcp import Client, MCPError
from mcp.client.stdio import stdio_client
from mcp_types import CONNECTION_CLOSED

from affordance.runtime import trace_carrier
from affordance_mcp import loop
from affordance_mcp.errors import ServerGoneError
from affordance_mcp.held_session import (
    HeldSession,
    TransportFactory,
    loop_of_this_thread,
    open_session,
)
from affordance_mcp.transports import http_transport, stdio_parameters

__all__ = ["MCPConnection"]

logger = logging.getLogger("affordance.mcp")

T = TypeVar("T")


class MCPConnection:
    """A client session to one server: ``stdio`` command or Streamable HTTP ``url``.

    ``label`` names the server in every message. :meth:`tools` and :meth:`call` connect on
    first use; ``with``/``async with`` (or :meth:`connect`/:meth:`aconnect` and
    :meth:`close`/:meth:`aclose`) make the lifetime explicit.
    """

    def __init__(
        self,
        transport: TransportFactory,
        *,
        label: str,
        connect_timeout: float = 10.0,
    ) -> None:
        if not connect_timeout > 0:
            raise ValueError(f"connect_timeout must be positive, got {connect_timeout}")
        self._transport = transport
        self.label = label
        self.connect_timeout = connect_timeout
        self._session: HeldSession | None = None
        self._tools: tuple[mcp_types.Tool, ...] | None = None
        self._stale = False
        self._refresh: asyncio.Task[None] | None = None
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self.connects = 0
        """How many sessions this connection has opened (1 + reconnects)."""
        self.tools_version = 0
        """Grows each time the tool list is fetched anew: a cache of converted tools keys on it."""

    @classmethod
    def stdio(
        cls,
        command: str,
        args: tuple[str, ...] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        label: str | None = None,
        connect_timeout: float = 10.0,
    ) -> MCPConnection:
        """A server started as ``command *args`` and spoken to over its stdin and stdout."""
        params = stdio_parameters(command, args, env=env, cwd=cwd)
        return cls(
            lambda: stdio_client(params),
            label=label or " ".join((command, *args)),
            connect_timeout=connect_timeout,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        label: str | None = None,
        connect_timeout: float = 10.0,
    ) -> MCPConnection:
        """A server at a Streamable HTTP ``url``; ``headers`` go with every request."""
        return cls(
            lambda: http_transport(url, headers),
            label=label or url,
            connect_timeout=connect_timeout,
        )

    def __repr__(self) -> str:
        state = "connected" if self.connected else "not connected"
        return f"MCPConnection({self.label!r}, {state})"

    @property
    def connected(self) -> bool:
        return self._session is not None and not self._session.watch.closed

    @property
    def instructions(self) -> str | None:
        """What the server said about itself when it connected (``instructions``)."""
        return None if self._session is None else self._session.client.instructions

    # -- lifetime, from anywhere -------------------------------------------------------------

    def connect(self) -> None:
        """Connect now (on the shared MCP loop), unless connected."""
        self._run_sync(self._open)

    async def aconnect(self) -> None:
        """Connect now, on the running loop: calls made from this loop then reach the session
        without a thread hop. Close it (``aclose``) before this loop ends."""
        if not self.connected:
            await self._open()

    def close(self) -> None:
        """Close the session and wait (at most about 8 s) for it to wind down."""
        if self._live_home() is None:
            self._release_elsewhere()  # nothing open, or a session already dead
        else:
            self._run_sync(self._shut)

    async def aclose(self) -> None:
        if self._live_home() is None:
            self._release_elsewhere()
        else:
            await self._run(self._shut)

    def __enter__(self) -> MCPConnection:
        self.connect()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> MCPConnection:
        await self.aconnect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- tools -------------------------------------------------------------------------------

    def tools(self) -> tuple[mcp_types.Tool, ...]:
        """The server's tools: listed on first use and after it said they changed.

        After a change, the list is fetched anew at once, on the session's loop; asked for from
        that very loop (a render inside ``async with section``), where nothing may block, the
        previous list is answered until the new one has landed."""
        listed = self._tools
        home = None if self._session is None else self._session.home
        fresh_enough = not self._stale or home is loop_of_this_thread()
        if listed is not None and self.connected and fresh_enough:
            return listed
        return self._run_sync(self._listed)

    async def atools(self) -> tuple[mcp_types.Tool, ...]:
        listed = self._tools
        if listed is not None and self.connected and not self._stale:
            return listed
        return await self._run(self._listed)

    async def call(self, name: str, arguments: Mapping[str, Any]) -> mcp_types.CallToolResult:
        """Call ``name`` from any loop. Raises :class:`ServerGoneError` if the server died while
        the call was in flight (it may have run), :class:`MCPError` for a protocol error. The
        call's time limit is the executor's (the tool's ``timeout``). The caller's trace
        context goes in the request's ``_meta`` (see the module)."""
        carrier = trace_carrier()
        return await self._run(lambda: self._call(name, dict(arguments), carrier))

    # -- where the session lives -------------------------------------------------------------
    # The holder task runs on the connection's home loop: the shared MCP loop, or the caller's
    # loop that awaited ``aconnect()``. Every operation runs there; a caller elsewhere hands it
    # over and waits. A connection that is not connected (never, closed, or its server gone)
    # opens again on the shared loop.

    def _live_home(self) -> asyncio.AbstractEventLoop | None:
        session = self._session
        if session is None or session.home.is_closed() or not self.connected:
            return None
        return session.home

    async def _run(self, work: Callable[[], Awaitable[T]]) -> T:
        home = self._live_home()
        if home is None:
            return await loop.asubmit(_awaited(work))
        if home is asyncio.get_running_loop():
            return await work()
        if not home.is_running():  # the caller's loop, idle: nothing would run the work there
            return await asyncio.to_thread(home.run_until_complete, _awaited(work))
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_awaited(work), home))

    def _run_sync(self, work: Callable[[], Awaitable[T]]) -> T:
        home = self._live_home()
        if home is None:
            return loop.submit(_awaited(work)).result()
        if not home.is_running():  # the caller's loop, idle: drive it here
            return home.run_until_complete(_awaited(work))
        if loop_of_this_thread() is home:
            raise RuntimeError(
                f"the MCP session {self.label!r} is held by the event loop running in this "
                "thread: use the async forms (await aclose(), await atools(), async with)"
            )
        return asyncio.run_coroutine_threadsafe(_awaited(work), home).result()

    # -- on the home loop --------------------------------------------------------------------

    def _guard(self) -> asyncio.Lock:
        running = asyncio.get_running_loop()
        lock = self._locks.get(running)
        if lock is None:
            lock = self._locks[running] = asyncio.Lock()
        return lock

    async def _open(self) -> Client:
        async with self._guard():
            session = self._session
            if session is not None and self.connected:
                return session.client
            self._release_elsewhere()
            session = await open_session(
                self._transport,
                label=self.label,
                connect_timeout=self.connect_timeout,
                on_message=self._on_message,
                on_tools_changed=self._tools_changed,
            )
            self._session = session
            self._tools = None
            self.connects += 1
            return session.client

    async def _shut(self) -> None:
        """Close the session; run on its home loop."""
        session = self._session
        self._forget()
        if session is not None:
            await session.shut()

    def _release_elsewhere(self) -> None:
        """Let a dead session's holder end on its own loop (its server gone, its loop closed)
        without waiting for it."""
        session = self._session
        self._forget()
        if session is not None:
            session.release()

    def _forget(self) -> None:
        self._session = None
        self._tools = None
        self._stale = False

    async def _listed(self) -> tuple[mcp_types.Tool, ...]:
        client = await self._open()
        found: list[mcp_types.Tool] = []
        cursor: str | None = None
        for _ in range(100):  # a paginator that never ends cannot hang a render
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            found.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        self._tools = tuple(found)
        self._stale = False
        self.tools_version += 1
        return self._tools

    async def _call(
        self, name: str, arguments: dict[str, Any], carrier: dict[str, str]
    ) -> mcp_types.CallToolResult:
        client = await self._open()
        # No carrier (no tracing plugin on): no ``meta``, the request as it always was.
        meta = cast(mcp_types.RequestParamsMeta, dict(carrier)) if carrier else None
        try:
            return await client.call_tool(name, arguments, meta=meta)
        except MCPError as error:
            if error.code == CONNECTION_CLOSED:
                raise ServerGoneError(self.label) from error
            raise

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_changed()

    def _tools_changed(self) -> None:
        """The server said its tools changed (on the session's loop): fetch them now, keeping
        the previous list for whoever cannot wait (see :meth:`tools`)."""
        self._stale = True
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.get_running_loop().create_task(self._relist())

    async def _relist(self) -> None:
        if not self.connected:  # closed meanwhile: never reopen from here
            return
        try:
            await self._listed()
        except Exception as error:  # noqa: BLE001 - stays stale: the next use lists again
            logger.debug("MCP server %r: listing its changed tools failed: %s", self.label, error)


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    """``work()`` awaited: a coroutine made on the loop that runs it."""
    return await work()
