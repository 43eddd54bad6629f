"""The errors of affordance-mcp's client side."""

from __future__ import annotations

from affordance.errors import AffordanceError

__all__ = ["MCPConnectError", "ServerGoneError"]


class MCPConnectError(AffordanceError):
    """A server could not be reached, did not finish connecting in time, or refused us."""


class ServerGoneError(AffordanceError):
    """The server went away while a request was in flight: it had been sent, so the server may
    have acted on it before it died. (A server known to be gone before a request is reconnected
    first; that request never raises this.)"""

    def __init__(self, label: str) -> None:
        self.label = label
        super().__init__(f"the MCP server {label!r} went away while a request was in flight")
