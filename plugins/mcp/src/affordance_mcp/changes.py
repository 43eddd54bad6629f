"""Following a server's tool-list changes on 2026-07-28 connections (``subscriptions/listen``).

Older connections announce a change with ``notifications/tools/list_changed``, which reaches the
connection's message handler; on 2026-07-28 connections a client must open a listen stream to
hear of it. :func:`following_tool_changes` keeps one open for as long as the session is held.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from mcp import Client

from affordance_mcp.watch import Watch

__all__ = ["following_tool_changes"]


@asynccontextmanager
async def following_tool_changes(
    client: Client, changed: Callable[[], None], watch: Watch
) -> AsyncIterator[None]:
    """On a 2026-07-28 connection whose server announces tool-list changes, listen for them
    (older connections get ``notifications/tools/list_changed`` through the message handler).
    A stream that ends while the session is held (its server restarted) closes ``watch``: later
    changes would go unseen, so the next use reconnects, and lists and listens again."""
    tools = client.server_capabilities.tools
    if tools is None or not tools.list_changed or client.protocol_version < "2026-07-28":
        yield
        return

    async def follow() -> None:
        listened = False
        with contextlib.suppress(Exception):
            async with client.listen(tools_list_changed=True) as subscription:
                listened = True
                async for _event in subscription:
                    changed()
        if listened:
            watch.closed = True

    task = asyncio.create_task(follow())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
