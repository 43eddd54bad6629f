"""Which tools may run at all: a policy consulted before every call and every request."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from affordance._frozen import frozen
from affordance.tools.hosted import HostedTool
from affordance.tools.tool import Tool

__all__ = ["AllowList", "PolicyDecision", "ToolPolicy"]


@frozen
class PolicyDecision:
    allowed: bool
    reason: str = ""

    @classmethod
    def allow(cls) -> PolicyDecision:
        return _ALLOW

    @classmethod
    def deny(cls, reason: str) -> PolicyDecision:
        return cls(False, reason)


_ALLOW = PolicyDecision(True)


class ToolPolicy(Protocol):
    """Decides whether a tool may run (local) or be offered to the provider (hosted)."""

    def check(self, tool: Tool[Any, Any] | HostedTool[Any]) -> PolicyDecision: ...


@dataclass(frozen=True, slots=True, init=False)
class AllowList:
    """Only the named tools may run; every other call is refused with a readable reason."""

    names: frozenset[str]

    def __init__(self, names: Iterable[str]) -> None:
        object.__setattr__(self, "names", frozenset(names))

    def check(self, tool: Tool[Any, Any] | HostedTool[Any]) -> PolicyDecision:
        if tool.name in self.names:
            return _ALLOW
        return PolicyDecision.deny(f"tool {tool.name!r} is not on the allowlist")
