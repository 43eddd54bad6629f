"""What plugins contribute: declarative specs returned by the ``affordance_*`` hooks.

Specs name their code by dotted path (``"package.module:Attribute"``), so registering a plugin
imports nothing heavy; the registry imports the target on first use.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PLUGIN_API", "CodecSpec", "HostedToolKindSpec", "ProviderSpec", "SerializerSpec"]

PLUGIN_API = 1
"""The version of this contract; a spec declaring another ``api`` is reported incompatible."""


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """A provider adapter: ``load_adapter(name, **options)`` builds ``adapter(**options)``.

    ``sdk`` is a requirement string (``"openai>=1.66,<4"``) checked against the installed
    distribution before the adapter is imported; a missing or too-old SDK makes the provider
    *unavailable* with the reason, instead of failing at import.
    """

    name: str
    adapter: str
    sdk: str | None = None
    description: str = ""
    api: int = PLUGIN_API


@dataclass(frozen=True, slots=True)
class HostedToolKindSpec:
    """A hosted tool kind and where its config and output types live."""

    kind: str
    config: str
    output: str
    description: str = ""
    api: int = PLUGIN_API


@dataclass(frozen=True, slots=True)
class CodecSpec:
    """A hosted-tool codec for ``(provider, kind)``: ``factory()`` returns the codec.

    Among several codecs for one key, a user pin wins, then the highest ``priority``; a tie is
    a conflict error naming both distributions.
    """

    provider: str
    kind: str
    factory: str
    priority: int = 0
    sdk: str | None = None
    api: int = PLUGIN_API


@dataclass(frozen=True, slots=True)
class SerializerSpec:
    """A replacement tool serializer for a provider (``role`` is e.g. ``"tool"``)."""

    provider: str
    role: str
    factory: str
    priority: int = 0
    api: int = PLUGIN_API
