"""A prompt's tools as an MCP server: :func:`server_for` builds it, :func:`serve` runs it.

``server_for(prompt, *params)`` is the SDK's low-level ``mcp.server.lowlevel.Server`` offering
the prompt's tools (``affordance_mcp.served_tools`` says which, and how each is declared);
connect to it in-process with ``mcp.Client(server)``, or run it with :func:`serve` /
:func:`serve_async` over stdio or streamable HTTP (the ``/mcp`` path). Calls run through core's
``ToolExecutor``; a destructive call runs once the client's user confirms it
(``affordance_mcp.confirmations``). The command line is ``affordance mcp serve``.

A call whose ``params._meta`` carries a W3C ``traceparent`` (SEP-414: what ``MCPSection``
sends) runs inside core's ``joined_trace``: with a tracing plugin on, the call's
``execute_tool`` span is a child of the client's span. ``_meta`` is the client's to write, so
only ``joined_trace`` reads it: the two W3C keys with string values of bounded length, which
the tracing plugin then parses; anything else there changes nothing.
"""

from __future__ import annotations

import functools
from typing import Any, Final, Literal

import anyio
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from affordance import EventBus, PromptTemplate, Session, ToolExecutor
from affordance.runtime import Runner, joined_trace
from affordance_mcp import __version__
from affordance_mcp.confirmations import Confirmations
from affordance_mcp.served_tools import ServedTools

__all__ = ["TRANSPORTS", "Transport", "serve", "serve_async", "server_for"]

Transport = Literal["stdio", "streamable-http"]
TRANSPORTS: Final[tuple[Transport, ...]] = ("stdio", "streamable-http")


def server_for(
    prompt: PromptTemplate[Any],
    *params: Any,
    name: str | None = None,
    executor: ToolExecutor | None = None,
    adapter: Runner | None = None,
    session: Session | None = None,
    bus: EventBus | None = None,
) -> Server[Any]:
    """An MCP server (named ``name``, else the prompt's name) offering the tools of ``prompt``
    rendered with ``params``. ``executor`` runs the calls (a default ``ToolExecutor`` when
    none); ``adapter``, ``session`` and ``bus`` are what the tools' ``ToolContext`` carries
    (see :class:`~affordance_mcp.served_tools.ServedTools`)."""
    served = ServedTools(
        prompt, *params, executor=executor, adapter=adapter, session=session, bus=bus
    )
    confirmations = Confirmations()

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(served.declarations))

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        with joined_trace(params.meta):
            return await answer_call(ctx, params)

    async def answer_call(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        call_id = str(ctx.request_id) if ctx.request_id is not None else ""
        prepared = served.prepare(params.name, params.arguments, call_id=call_id)
        if prepared.tool is None and prepared.result is not None:  # no such tool: the protocol's
            raise MCPError(code=types.INVALID_PARAMS, message=prepared.result.message)
        if prepared.needs_confirmation:
            answer = await confirmations.ask(ctx, params, prepared)
            if isinstance(answer, types.InputRequiredResult):
                return answer
            if answer is not True:
                return served.refuse(prepared, answer)
            arguments = params.arguments
            prepared = served.prepare(params.name, arguments, call_id=call_id, confirmed=True)
        return await served.run(prepared)

    return Server(
        name or prompt.name,
        version=__version__,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_async(
    prompt: PromptTemplate[Any],
    *params: Any,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    name: str | None = None,
    executor: ToolExecutor | None = None,
    adapter: Runner | None = None,
    session: Session | None = None,
    bus: EventBus | None = None,
) -> None:
    """Serve ``prompt``'s tools until the client goes away (stdio: stdin closes) or the
    process is stopped (streamable HTTP on ``http://host:port/mcp``)."""
    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}; got {transport!r}")
    server = server_for(
        prompt, *params, name=name, executor=executor, adapter=adapter, session=session, bus=bus
    )
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()


def serve(
    prompt: PromptTemplate[Any],
    *params: Any,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    name: str | None = None,
    executor: ToolExecutor | None = None,
    adapter: Runner | None = None,
    session: Session | None = None,
    bus: EventBus | None = None,
) -> None:
    """:func:`serve_async` on a new event loop: blocks until the server stops."""
    run = functools.partial(
        serve_async,
        prompt,
        *params,
        transport=transport,
        host=host,
        port=port,
        name=name,
        executor=executor,
        adapter=adapter,
        session=session,
        bus=bus,
    )
    anyio.run(run)
