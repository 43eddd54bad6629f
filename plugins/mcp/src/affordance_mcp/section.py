"""``MCPSection``: an MCP server's tools as a section of a prompt.

A section like any other: it renders under its title, is summarized until ``open_sections``
opens it (when given a ``summary``), and exposes its tools while enabled and fully visible. Its
tools are listed from the server when the section first renders (or when ``with section:``
connects it), kept between runs, and listed again after the server says they changed or after
a reconnect. The names the model sees are ``prefix + name`` (made safe for every provider);
``include``/``exclude`` filter by the server's own names.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import mcp_types

from affordance.prompt import Section, SectionVisibility
from affordance.tools import Tool
from affordance_mcp.connection import MCPConnection
from affordance_mcp.results import MCPToolOutput
from affordance_mcp.tools import MCPToolOptions, ToolSettings, build_tool

__all__ = ["MCPSection"]


class MCPSection(Section[None]):
    """The tools of one MCP server; build it with :meth:`stdio` or :meth:`http`.

    ``with section:`` / ``async with section:`` connect at once and close at the end;
    otherwise the server is connected on first render and closed by :meth:`close` (or at exit).
    The section text is the server's ``instructions``, then the full description of each tool
    whose description was too long for a tool declaration.
    """

    tools_listed_at_render = True

    def __init__(
        self,
        connection: MCPConnection,
        *,
        title: str,
        key: str | None = None,
        prefix: str | None = None,
        include: Collection[str] | None = None,
        exclude: Collection[str] = (),
        summary: str | None = None,
        tool_options: Mapping[str, MCPToolOptions] | None = None,
        call_timeout: float | None = 60.0,
        cache_ttl: float | None = 60.0,
        max_result_chars: int | None = 20_000,
        enabled: Any = None,
    ) -> None:
        super().__init__(
            title=title,
            key=key,
            summary=summary,
            visibility=SectionVisibility.FULL if summary is None else SectionVisibility.SUMMARY,
            enabled=enabled,
        )
        if max_result_chars is not None and max_result_chars < 200:
            raise ValueError(f"max_result_chars must be at least 200, got {max_result_chars}")
        self.connection = connection
        self.include = None if include is None else frozenset(include)
        self.exclude = frozenset(exclude)
        self.tool_options = dict(tool_options or {})
        self.settings = ToolSettings(
            server=connection.label,
            prefix=prefix or "",
            call_timeout=call_timeout,
            cache_ttl=cache_ttl,
            max_result_chars=max_result_chars,
        )
        self._built: tuple[int, int, tuple[Tool[Any, MCPToolOutput], ...], str] | None = None
        self._fixed: tuple[tuple[Tool[Any, MCPToolOutput], ...], str] | None = None

    @classmethod
    def stdio(
        cls,
        command: str,
        args: tuple[str, ...] | list[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        connect_timeout: float = 10.0,
        title: str,
        **options: Any,
    ) -> MCPSection:
        """The tools of a server started as ``command *args``, spoken to over stdio."""
        connection = MCPConnection.stdio(
            command, tuple(args), env=env, cwd=cwd, connect_timeout=connect_timeout
        )
        return cls(connection, title=title, **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        title: str,
        **options: Any,
    ) -> MCPSection:
        """The tools of a server at a Streamable HTTP ``url``."""
        connection = MCPConnection.http(url, headers=headers, connect_timeout=connect_timeout)
        return cls(connection, title=title, **options)

    def __repr__(self) -> str:
        return f"MCPSection(key={self.key!r}, server={self.connection.label!r})"

    # -- lifetime ------------------------------------------------------------------------

    def __enter__(self) -> MCPSection:
        self.connection.connect()
        self.tools()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.connection.close()

    async def __aenter__(self) -> MCPSection:
        await self.connection.aconnect()
        await self.connection.atools()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.connection.aclose()

    def close(self) -> None:
        self.connection.close()

    async def aclose(self) -> None:
        await self.connection.aclose()

    # -- the section ---------------------------------------------------------------------

    def tools(self) -> tuple[Tool[Any, Any], ...]:
        return self._current()[0]

    def render_body(self, params: Any) -> str:
        return self._current()[1]

    def tools_listing(self) -> dict[str, Any]:
        """The server's ``tools/list`` items as JSON and its ``instructions`` (connecting if
        need be): what :meth:`listed` renders, in a durable run's workflow say."""
        listed = self.connection.tools()
        return {
            "instructions": self.connection.instructions,
            "tools": [
                item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in listed
            ],
        }

    def listed(self, listing: Any) -> MCPSection:
        """This section fixed to ``listing`` (a :meth:`tools_listing`): the same tools and text,
        built without asking the server; a call of one of its tools still goes to the server
        through this section's connection."""
        items = tuple(mcp_types.Tool.model_validate(item) for item in listing["tools"])
        fixed = copy.copy(self)
        fixed._built = None
        fixed._fixed = self._build(items, listing.get("instructions"))
        return fixed

    def _current(self) -> tuple[tuple[Tool[Any, MCPToolOutput], ...], str]:
        """The built tools and text, rebuilt only when the server's list was fetched anew."""
        if self._fixed is not None:
            return self._fixed
        listed = self.connection.tools()
        built = self._built
        version = (self.connection.connects, self.connection.tools_version)
        if built is not None and built[:2] == version:
            return built[2:]
        tools, body = self._build(listed, self.connection.instructions)
        self._built = (*version, tools, body)
        return tools, body

    def _build(
        self, listed: Sequence[mcp_types.Tool], instructions: str | None
    ) -> tuple[tuple[Tool[Any, MCPToolOutput], ...], str]:
        tools: list[Tool[Any, MCPToolOutput]] = []
        longer: list[str] = []
        for item in listed:
            if not self._wanted(item):
                continue
            tool, whole = build_tool(
                item, self.connection, self.settings, self.tool_options.get(item.name)
            )
            tools.append(tool)
            if whole is not None:
                longer.append(f"- `{tool.name}`: {whole}")
        parts = [instructions or ""]
        if longer:
            parts.append("What the tools do:\n" + "\n".join(longer))
        return tuple(tools), "\n\n".join(part for part in parts if part)

    def _wanted(self, item: mcp_types.Tool) -> bool:
        if self.include is not None and item.name not in self.include:
            return False
        return item.name not in self.exclude
