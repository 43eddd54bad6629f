"""Hosted tools: capabilities the provider runs server-side (web search, code execution).

Core knows only their shape. Each provider plugin turns a :class:`HostedTool` into its wire
format with a :class:`HostedToolCodec`, looked up by ``(provider, kind)`` in the plugin
registry; codecs work on JSON-like dicts so they never import a provider SDK. A codec whose
tool needs more of the request than its declaration (OpenAI Responses' ``include``) says so
with the optional ``request_extras`` (:class:`DeclaresRequestExtras`), and one whose tool needs
an HTTP header on the request (Anthropic's ``anthropic-beta``) with the optional
``request_headers`` (:class:`DeclaresRequestHeaders`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from affordance._frozen import frozen
from affordance.errors import PromptValidationError, UnsupportedHostedConfigError
from affordance.tools._naming import check_description, check_tool_name

__all__ = [
    "DeclaresRequestExtras",
    "DeclaresRequestHeaders",
    "HostedTool",
    "HostedToolCodec",
    "HostedToolConfig",
    "HostedToolOutput",
    "config_as",
    "refuse_unhonoured",
]

_KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")


@runtime_checkable
class HostedToolConfig(Protocol):
    """Marker for the configuration of a hosted tool: a frozen dataclass."""


@runtime_checkable
class HostedToolOutput(Protocol):
    """Marker for the typed output a codec parses out of a provider response."""


ConfigT = TypeVar("ConfigT", bound=HostedToolConfig)
OutputT_co = TypeVar("OutputT_co", covariant=True)


@frozen
class HostedTool(Generic[ConfigT]):
    """A provider-executed capability attached to a section, like a local tool.

    ``kind`` names the capability (``"web_search"``); ``name`` is unique within the prompt,
    sharing one namespace with local tools.
    """

    kind: str
    name: str
    description: str
    config: ConfigT

    def __post_init__(self) -> None:
        check_tool_name(self.name, kind="HostedTool")
        kind: object = self.kind
        if not isinstance(kind, str) or _KIND.fullmatch(kind) is None:
            raise PromptValidationError(
                f"HostedTool kind {self.kind!r} must match ^[a-z][a-z0-9_]{{0,63}}$",
                tool_name=self.name,
            )
        description = check_description(self.description, tool_name=self.name, kind="HostedTool")
        object.__setattr__(self, "description", description)
        config: object = self.config
        params = getattr(type(config), "__dataclass_params__", None)
        if (
            not dataclasses.is_dataclass(config)
            or isinstance(config, type)
            or not (params is not None and params.frozen)
        ):
            raise PromptValidationError(
                f"HostedTool config must be a frozen dataclass instance, got "
                f"{type(config).__qualname__}",
                tool_name=self.name,
            )


class HostedToolCodec(Protocol[ConfigT, OutputT_co]):
    """How one provider declares a hosted tool kind and reads back its output.

    ``serialize`` returns the provider's tool declaration as a JSON-like dict.
    ``parse_output`` receives the provider's response items as JSON-like dicts and returns the
    typed output, or ``None`` when the tool was not invoked in that response. A codec may also
    define ``request_extras`` (:class:`DeclaresRequestExtras`); one without it asks for nothing.
    """

    @property
    def kind(self) -> str: ...

    def serialize(self, tool: HostedTool[ConfigT]) -> dict[str, Any]: ...

    def parse_output(
        self, response_items: Sequence[Mapping[str, Any]], tool: HostedTool[ConfigT]
    ) -> OutputT_co | None: ...


class DeclaresRequestExtras(Protocol[ConfigT]):
    """The optional part of a :class:`HostedToolCodec`: request fields its tool needs besides
    its declaration, as top-level body fields to merge (``{"include":
    ["file_search_call.results"]}`` on OpenAI Responses).

    Like ``serialize``, it speaks the wire of the codec provider the codec is registered under
    (``openai`` is Responses, ``openai-chat`` is Chat Completions), so it needs no API argument.
    The adapter merges every codec's extras by one rule (``affordance.adapters.hosted``) and
    places them in its body; the caller's ``extra_body`` is merged after them.
    """

    def request_extras(self, tool: HostedTool[ConfigT]) -> Mapping[str, Any]: ...


class DeclaresRequestHeaders(Protocol[ConfigT]):
    """The optional part of a :class:`HostedToolCodec` whose tool needs HTTP headers on the
    request (``{"anthropic-beta": "mcp-client-2025-11-20"}``): header names to values.

    Every header is read as a comma-separated list (RFC 9110, section 5.3): several codecs
    asking for one header, and the SDK client's own default value of it, are joined into one
    value, each entry once. The adapter sends them with the request; the body never holds them.
    """

    def request_headers(self, tool: HostedTool[ConfigT]) -> Mapping[str, str]: ...


C = TypeVar("C")


def config_as(tool: HostedTool[Any], config_type: type[C]) -> C:
    """For a codec: the tool's config, checked to be the ``config_type`` the codec reads (a
    tool of the same kind built with another plugin's config is a ``TypeError``)."""
    config: object = tool.config
    if not isinstance(config, config_type):
        raise TypeError(
            f"hosted tool {tool.name!r} has a {type(config).__qualname__} config; the codecs "
            f"of {config_type.__module__.split('.')[0]} read {config_type.__qualname__}"
        )
    return config


def refuse_unhonoured(
    tool: HostedTool[Any],
    requested: Iterable[str],
    *,
    provider: str,
    honours: Iterable[str],
    error: type[UnsupportedHostedConfigError] = UnsupportedHostedConfigError,
) -> None:
    """For a codec's ``serialize``: raise ``error`` naming the first of the settings the tool's
    config asks for (``requested``) that ``provider`` does not honour, before anything is sent."""
    honoured = tuple(honours)
    for field in requested:
        if field not in honoured:
            supported = ", ".join(honoured) if honoured else "none of them"
            raise error(
                f"{tool.kind.replace('_', ' ')} tool {tool.name!r} sets {field}, which provider "
                f"{provider!r} cannot honour (it honours: {supported}); remove the setting or "
                "choose another provider",
                field=field,
                provider=provider,
                tool_name=tool.name,
            )
