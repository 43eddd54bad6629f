"""The errors of affordance-mcp's client side."""

from __future__ import annotations

from affordance.errors import AffordanceError

__all__ = ["MCPConnectError", "ServerGoneError"]


class MCPConnectError(AffordanceError):
    """A server could not be reached, did not finish connecting in time, or refused us."""


class ServerGoneError(AffordanceError):
    """The server went away during a request. ``maybe_ran``: the request had been sent, so the
    server may have acted on it before it died."""

    def __init__(self, label: str, *, maybe_ran: bool) -> None:
        self.label = label
        self.maybe_ran = maybe_ran
        when = "while a request was in flight" if maybe_ran else "before the request was sent"
        super().__init__(f"the MCP server {label!r} went away {when}")
