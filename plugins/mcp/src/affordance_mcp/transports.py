"""The two ways to reach a server: a command spoken to over stdio, a Streamable HTTP url."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

__all__ = ["http_transport", "stdio_parameters"]


def stdio_parameters(
    command: str,
    args: tuple[str, ...],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> StdioServerParameters:
    """The SDK's parameters for ``command *args`` (``env`` replaces the SDK's safe default
    environment when given)."""
    return StdioServerParameters(
        command=command, args=list(args), env=None if env is None else dict(env), cwd=cwd
    )


@asynccontextmanager
async def http_transport(url: str, headers: Mapping[str, str] | None) -> AsyncIterator[Any]:
    """Streamable HTTP with ``headers`` on every request; the SDK's own timeouts (a read may
    wait on a held-open response stream)."""
    if not headers:
        async with streamable_http_client(url) as streams:
            yield streams
        return
    http_client = httpx2.AsyncClient(
        headers=dict(headers), timeout=httpx2.Timeout(30.0, read=300.0)
    )
    async with http_client, streamable_http_client(url, http_client=http_client) as streams:
        yield streams
