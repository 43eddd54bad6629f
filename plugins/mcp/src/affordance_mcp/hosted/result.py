"""What a provider-hosted MCP server did in one response, in one shape on every provider.

A field a provider does not report is None or empty, never guessed; which provider fills what
is the support table in ``specs/MCP_HOSTED.md`` (each codec declares it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from affordance.errors import PromptValidationError

__all__ = ["RESULT_FIELDS", "HostedMCPResult", "MCPCallResult", "MCPListedTool"]

RESULT_FIELDS: tuple[str, ...] = (
    "calls.server",
    "calls.tool",
    "calls.arguments",
    "calls.output",
    "calls.error",
    "calls.call_id",
    "tools",
)
"""Everything a :class:`HostedMCPResult` can hold, as codecs name it."""


@dataclass(frozen=True, slots=True)
class MCPCallResult:
    """One call of a tool on the MCP server, run by the provider.

    ``server`` is the server's label, ``tool`` the tool's name on it, ``arguments`` the JSON
    object the model passed (``{"value": ...}`` when what the provider reports is not an object:
    another JSON value, or text that is no JSON). ``output`` is the text the tool returned,
    ``error`` what went wrong (the tool's own error text, or the provider's protocol or HTTP
    error); both None when the provider reports neither (a call with no result).
    ``call_id`` is the provider's id of the call.
    """

    server: str
    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict, hash=False)
    output: str | None = None
    error: str | None = None
    call_id: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the call reported no error."""
        return self.error is None


@dataclass(frozen=True, slots=True)
class MCPListedTool:
    """A tool the provider found on the server when it listed them (``server`` is the label)."""

    server: str
    name: str
    description: str | None = None
    input_schema: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True)
class HostedMCPResult:
    """Every call the response made on one MCP server, in order (at least one), and the tools
    the provider listed on it in the same response — what ``hosted_outputs[name]`` holds.

    The shortcuts describe the last call, the one the answer rests on: :attr:`output`,
    :attr:`error`, :attr:`tool`.
    """

    calls: tuple[MCPCallResult, ...]
    tools: tuple[MCPListedTool, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "calls", tuple(self.calls))
        object.__setattr__(self, "tools", tuple(self.tools))
        if not self.calls:
            raise PromptValidationError("HostedMCPResult needs at least one call")

    @property
    def output(self) -> str | None:
        return self.calls[-1].output

    @property
    def error(self) -> str | None:
        return self.calls[-1].error

    @property
    def tool(self) -> str:
        return self.calls[-1].tool
