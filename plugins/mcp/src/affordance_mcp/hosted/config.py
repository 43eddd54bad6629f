"""``MCPServerConfig``: the remote MCP server a provider connects to for a hosted ``mcp`` tool.

The provider — not this process — opens the connection, lists the server's tools and calls
them. The config is validated at construction (:class:`~affordance.PromptValidationError`
naming the field); whether a provider can honour a setting is its codec's decision when a
request is built, and a setting it cannot honour is an error there, never dropped.

Secrets (``authorization``, ``headers``) are left out of ``repr`` so a config can be logged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal
from urllib.parse import urlsplit

from affordance.errors import PromptValidationError

__all__ = ["CONFIG_FIELDS", "ApprovalFilter", "MCPServerConfig", "RequireApproval"]

CONFIG_FIELDS: tuple[str, ...] = (
    "server_label",
    "server_url",
    "authorization",
    "headers",
    "allowed_tools",
    "require_approval",
    "server_description",
)
"""Everything an :class:`MCPServerConfig` can ask of a provider, as codecs name it."""

_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
_HEADER = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)


def _names(owner: str, given: Iterable[str]) -> tuple[str, ...]:
    """Tool names, checked: a tuple of non-empty strings, not one string, no repeats."""
    value: object = given
    if isinstance(value, str):
        raise PromptValidationError(
            f"{owner} must be a tuple of tool names, not one string: write ({value!r},)"
        )
    names: tuple[object, ...] = tuple(given)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise PromptValidationError(f"{owner}: {name!r} is not a tool name")
    if len(set(names)) != len(names):
        raise PromptValidationError(f"{owner} names a tool twice")
    return tuple(given)


@dataclass(frozen=True, slots=True)
class ApprovalFilter:
    """Approval per tool: calls of ``always`` tools wait for the caller's approval, calls of
    ``never`` tools do not; a tool in neither list gets the provider's default (OpenAI: ask)."""

    always: tuple[str, ...] = ()
    never: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        always = _names("ApprovalFilter.always", self.always)
        never = _names("ApprovalFilter.never", self.never)
        object.__setattr__(self, "always", always)
        object.__setattr__(self, "never", never)
        if not always and not never:
            raise PromptValidationError("ApprovalFilter needs tool names in always or never")
        both = sorted(set(always) & set(never))
        if both:
            raise PromptValidationError(
                f"ApprovalFilter lists {', '.join(both)} in both always and never"
            )


RequireApproval = Literal["always", "never"] | ApprovalFilter
"""Which calls wait for the caller's approval: every call, none, or per tool."""


@dataclass(frozen=True, slots=True)
class MCPServerConfig:
    """One remote MCP server, offered to the model by the provider.

    - ``server_label``: the server's name in requests and results (OpenAI ``server_label``,
      Anthropic ``mcp_servers[].name``); a letter, then letters, digits, ``_`` or ``-``;
    - ``server_url``: where the provider reaches it, ``https://...`` (``http://`` only where a
      provider accepts it);
    - ``authorization``: an OAuth access token the provider sends to the server;
    - ``headers``: more HTTP headers for the server (OpenAI);
    - ``allowed_tools``: the only tools of the server the model may call (None: all);
    - ``require_approval``: ``"always"``, ``"never"`` or an :class:`ApprovalFilter`; None leaves
      it to the provider (OpenAI asks for approval by default, Anthropic never asks);
    - ``server_description``: what the server is for, for the model (OpenAI).
    """

    server_label: str
    server_url: str
    authorization: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False, hash=False)
    allowed_tools: tuple[str, ...] | None = None
    require_approval: RequireApproval | None = None
    server_description: str | None = None

    def __post_init__(self) -> None:
        label: object = self.server_label
        if not isinstance(label, str) or _LABEL.fullmatch(label) is None:
            raise PromptValidationError(
                "MCPServerConfig.server_label must be a letter followed by up to 63 letters, "
                f"digits, '_' or '-', got {label!r}"
            )
        self._check_url()
        token: object = self.authorization
        if token is not None and (not isinstance(token, str) or not token.strip()):
            raise PromptValidationError("MCPServerConfig.authorization must be a non-empty string")
        object.__setattr__(self, "headers", self._checked_headers())
        if self.allowed_tools is not None:
            allowed = _names("MCPServerConfig.allowed_tools", self.allowed_tools)
            if not allowed:
                raise PromptValidationError(
                    "MCPServerConfig.allowed_tools is empty: no tool could be called; leave it "
                    "None to allow every tool"
                )
            object.__setattr__(self, "allowed_tools", allowed)
        approval: object = self.require_approval
        if approval not in (None, "always", "never") and not isinstance(approval, ApprovalFilter):
            raise PromptValidationError(
                "MCPServerConfig.require_approval must be 'always', 'never' or an "
                f"ApprovalFilter, got {approval!r}"
            )
        about: object = self.server_description
        if about is not None and (not isinstance(about, str) or not about.strip()):
            raise PromptValidationError(
                "MCPServerConfig.server_description must be a non-empty string"
            )

    def _check_url(self) -> None:
        url: object = self.server_url
        parts = urlsplit(url) if isinstance(url, str) else None
        if parts is None or parts.scheme not in ("https", "http") or not parts.hostname:
            raise PromptValidationError(
                f"MCPServerConfig.server_url must be an https:// URL of the server, got {url!r}"
            )

    def _checked_headers(self) -> Mapping[str, str]:
        given: object = self.headers
        if not isinstance(given, Mapping):
            raise PromptValidationError(
                "MCPServerConfig.headers must map header names to values, got "
                f"{type(given).__name__}"
            )
        for name, value in given.items():
            if not isinstance(name, str) or _HEADER.fullmatch(name) is None:
                raise PromptValidationError(f"MCPServerConfig.headers: {name!r} is no header name")
            if not isinstance(value, str) or "\n" in value or "\r" in value:
                raise PromptValidationError(
                    f"MCPServerConfig.headers[{name!r}] must be a one-line string"
                )
        return MappingProxyType(dict(given))

    @property
    def secure(self) -> bool:
        """Whether the server is reached over TLS (``https://``)."""
        return self.server_url.startswith("https://")

    def requested(self) -> tuple[str, ...]:
        """The entries of :data:`CONFIG_FIELDS` this config asks for, in that order."""
        asked = {
            "server_label": True,
            "server_url": True,
            "authorization": self.authorization is not None,
            "headers": bool(self.headers),
            "allowed_tools": self.allowed_tools is not None,
            "require_approval": self.require_approval is not None,
            "server_description": self.server_description is not None,
        }
        return tuple(name for name in CONFIG_FIELDS if asked[name])
