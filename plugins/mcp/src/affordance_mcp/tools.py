"""An MCP server's tools as affordance ``Tool`` objects, run by the core executor.

Each MCP tool becomes a ``Tool`` whose params type is its ``inputSchema``
(:func:`~affordance_mcp.validation.arguments_type`) and whose handler calls the server, so the
executor gives it what every tool gets: validation, timeouts, retries, the allowlist, caching,
confirmation, metadata-only logs and events.

Annotations become behaviour, with the MCP specification's defaults for a hint the server left
out (``readOnlyHint`` false, ``destructiveHint`` true, ``idempotentHint`` false):

- a tool that may destroy (not read-only, destructive) needs the caller's confirmation;
- a read-only, idempotent tool is cached (``cache_ttl``) and retried, timeouts included, when
  its server goes away mid-call;
- any other call that was in flight when its server died is not replayed: the model reads a
  failed result saying it may have run.

:class:`MCPToolOptions` overrides any of this per tool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types
from mcp import MCPError

from affordance.errors import ToolError
from affordance.tools import RetryPolicy, Tool, ToolResult
from affordance_mcp.errors import MCPConnectError, ServerGoneError
from affordance_mcp.results import MCPToolOutput, output_from
from affordance_mcp.validation import arguments_type

if TYPE_CHECKING:
    from affordance_mcp.connection import MCPConnection

__all__ = ["MCPToolOptions", "ToolSettings", "build_tool", "local_name"]

_UNSAFE = re.compile(r"[^a-z0-9_-]+")
_MAX_DESCRIPTION = 200

_REPLAY = RetryPolicy(max_attempts=2, retry_timeouts=True)
"""A read-only, idempotent call is tried once more when its server went away or it timed out."""


@dataclass(frozen=True, slots=True)
class MCPToolOptions:
    """Per-tool overrides of what the annotations say; ``None`` keeps the annotation's word.

    ``destructive``: needs confirmation. ``cacheable``: results kept for the section's
    ``cache_ttl``. ``replayable``: retried after its server went away mid-call (and on timeout).
    ``timeout``: seconds per call, instead of the section's ``call_timeout``.
    """

    destructive: bool | None = None
    cacheable: bool | None = None
    replayable: bool | None = None
    timeout: float | None = None


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """The section-wide settings each tool is built with."""

    server: str
    prefix: str = ""
    call_timeout: float | None = 60.0
    cache_ttl: float | None = 60.0
    max_result_chars: int | None = 20_000


def local_name(name: str, prefix: str) -> str:
    """The name the model sees: ``prefix + name``, lowercased, with anything outside
    ``[a-z0-9_-]`` made ``_``, at most 64 characters."""
    return _UNSAFE.sub("_", f"{prefix}{name}".lower())[:64] or "_"


def build_tool(
    listed: mcp_types.Tool,
    connection: MCPConnection,
    settings: ToolSettings,
    options: MCPToolOptions | None = None,
) -> tuple[Tool[Any, MCPToolOutput], str | None]:
    """The ``Tool`` for ``listed``, and its whole description when it was too long (or not
    ASCII) for a tool description: the section shows it in its text instead."""
    options = options or MCPToolOptions()
    name = local_name(listed.name, settings.prefix)
    hints = listed.annotations or mcp_types.ToolAnnotations()
    read_only = bool(hints.read_only_hint)
    idempotent = bool(hints.idempotent_hint)
    destructive = not read_only and (hints.destructive_hint is not False)
    if options.destructive is not None:
        destructive = options.destructive
    cacheable = options.cacheable if options.cacheable is not None else read_only and idempotent
    replayable = options.replayable if options.replayable is not None else read_only and idempotent
    description, whole = _description(listed, settings.server)
    handler = _handler(listed.name, connection, settings, replayable)
    tool: Tool[Any, MCPToolOutput] = Tool(
        name=name,
        description=description,
        handler=handler,
        params_type=arguments_type(listed.input_schema, name=name),
        destructive=destructive,
        timeout=options.timeout if options.timeout is not None else settings.call_timeout,
        retry=_REPLAY if replayable else None,
        cache_ttl=settings.cache_ttl if cacheable and not destructive else None,
    )
    return tool, whole


def _description(listed: mcp_types.Tool, server: str) -> tuple[str, str | None]:
    text = " ".join((listed.description or listed.title or "").split())
    if not text:
        return f"The tool {listed.name} of the MCP server {server}.", None
    if len(text) <= _MAX_DESCRIPTION and text.isascii():
        return text, None
    ascii_text = text.encode("ascii", "replace").decode().replace("?", " ").strip() or listed.name
    short = ascii_text[: _MAX_DESCRIPTION - 30].rsplit(" ", 1)[0]
    return f"{short} ... (in full in the prompt)", text


def _handler(
    remote_name: str, connection: MCPConnection, settings: ToolSettings, replayable: bool
) -> Any:
    async def call_mcp_tool(arguments: Mapping[str, Any]) -> ToolResult[MCPToolOutput]:
        try:
            answer = await connection.call(remote_name, arguments)
        except ServerGoneError as gone:
            if replayable:
                raise ToolError("server_gone", str(gone), retryable=True) from gone
            raise ToolError(
                "server_gone",
                f"{gone}; the call may have run, so it was not sent again",
                recover_action="check whether it took effect before calling it again",
            ) from gone
        except MCPConnectError as error:
            raise ToolError("server_unavailable", str(error), retryable=replayable) from error
        except MCPError as error:
            raise ToolError("mcp_error", f"the server refused the call: {error}") from error
        except RuntimeError as error:  # the SDK's output-schema check
            raise ToolError("invalid_output", str(error)) from error
        output = output_from(
            answer, server=settings.server, tool=remote_name, max_chars=settings.max_result_chars
        )
        if output.is_error:
            return ToolResult(
                message=output.render() or "the tool failed",
                value=output,
                success=False,
                exclude_value_from_context=True,
            )
        return ToolResult(message="", value=output, attachments=output.attachments())

    return call_mcp_tool
