"""An MCP server built on the SDK's ``MCPServer``, with one tool per behaviour the client tests.

Run as ``python toolbox.py`` (stdio) or ``python toolbox.py --http PORT`` (Streamable HTTP on
127.0.0.1). Every call is recorded in the process, so ``calls_made`` tells a test whether the
server was reached at all.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import TypedDict

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=False)
"""Not destructive, not cached: every call reaches the server."""

READ_ONLY_IDEMPOTENT = ToolAnnotations(read_only_hint=True, idempotent_hint=True)
WRITE_SAFE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
"""Changes something, destroys nothing: runs without confirmation, never replayed."""

DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True)

LONG_DESCRIPTION = (
    "Summarizes a document in several careful steps: it reads the whole text, finds its "
    "sections, weighs each section by how much the rest of the document refers to it, and "
    "writes a summary whose length follows those weights. The word LONGTAIL ends this text."
)

TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)

server = MCPServer(
    "toolbox", instructions="The toolbox server, for the client tests.", log_level="WARNING"
)
calls: list[str] = []


class Weather(TypedDict):
    city: str
    celsius: float


@server.tool(annotations=READ_ONLY)
def whoami() -> int:
    """The process id of this server."""
    calls.append("whoami")
    return os.getpid()


@server.tool(annotations=READ_ONLY)
def calls_made() -> list[str]:
    """The tools called in this process so far, in order."""
    return list(calls)


@server.tool(annotations=WRITE_SAFE)
def record(note: str, times: int = 1) -> str:
    """Records a note."""
    calls.append("record")
    return f"recorded {note!r} {times} time(s)"


@server.tool(annotations=DESTRUCTIVE)
def delete_item(item: str) -> str:
    """Deletes an item for good."""
    calls.append("delete_item")
    return f"deleted {item}"


@server.tool()
def no_hints(x: int) -> str:
    """A tool without annotations: destructive by the specification's defaults."""
    calls.append("no_hints")
    return f"no_hints ran with {x}"


@server.tool(name="Fetch.Page", annotations=READ_ONLY)
def fetch_page(url: str) -> str:
    """Fetches a page (a name with capitals and a dot)."""
    calls.append("Fetch.Page")
    return f"page at {url}"


@server.tool(description=LONG_DESCRIPTION, annotations=READ_ONLY)
def summarize(text: str) -> str:
    calls.append("summarize")
    return text[:10]


@server.tool(annotations=READ_ONLY_IDEMPOTENT)
def weather(city: str) -> Weather:
    """Today's weather in a city, as structured content."""
    calls.append("weather")
    return Weather(city=city, celsius=21.5)


@server.tool(annotations=READ_ONLY)
def picture() -> Image:
    """A one-pixel PNG."""
    calls.append("picture")
    return Image(data=TINY_PNG, format="png")


@server.tool(annotations=READ_ONLY)
def big_text(size: int) -> str:
    """``size`` characters: HEAD, then dots, then TAIL."""
    calls.append("big_text")
    return "HEAD" + "." * (size - 8) + "TAIL"


@server.tool(annotations=READ_ONLY)
def fail(reason: str) -> str:
    """Always fails with ``reason``."""
    calls.append("fail")
    raise ToolError(f"it failed: {reason}")


def _stall(marker: str, log: str) -> str:
    """Append this pid to ``log``; the first call (no ``marker`` yet) makes it and then
    waits to be killed; later calls answer at once."""
    with Path(log).open("a") as file:
        file.write(f"{os.getpid()}\n")
    first = not Path(marker).exists()
    if first:
        Path(marker).touch()
        time.sleep(30)
    return f"finished in process {os.getpid()}"


@server.tool(annotations=WRITE_SAFE)
def slow_write(marker: str, log: str) -> str:
    """Stalls on its first call (see ``_stall``); may change things, so never replayed."""
    return _stall(marker, log)


@server.tool(annotations=READ_ONLY_IDEMPOTENT)
def slow_read(marker: str, log: str) -> str:
    """Stalls on its first call (see ``_stall``); read-only and idempotent, so replayable."""
    return _stall(marker, log)


@server.tool(annotations=WRITE_SAFE)
async def add_tool(name: str, ctx: Context) -> str:
    """Adds a tool called ``name`` and tells the client the tool list changed."""

    def added() -> str:
        return f"{name} was added at run time"

    server.add_tool(
        added, name=name, description=f"The tool {name}, added at run time.", annotations=READ_ONLY
    )
    await ctx.notify_tools_changed()  # to the client's subscriptions/listen stream
    return f"added {name}"


@server.tool(annotations=READ_ONLY)
def echo_header(name: str, ctx: Context) -> str:
    """The value of the HTTP request header ``name`` (``<none>`` when absent or on stdio)."""
    headers = ctx.headers or {}
    return headers.get(name.lower(), "<none>")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--tag", help="ignored: lets a test find this process by its command line")
    options = parser.parse_args()
    if options.http is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=options.http)


if __name__ == "__main__":
    main()
