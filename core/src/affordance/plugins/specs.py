"""What plugins contribute: declarative specs returned by the ``affordance_*`` hooks.

Specs name their code by dotted path (``"package.module:Attribute"``), so registering a plugin
imports nothing heavy; the registry imports the target on first use. Each spec checks its
fields when built, so a malformed one fails inside the plugin that made it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from affordance.plugins._requirements import Requirement
from affordance.plugins.errors import InvalidSpecError, PluginConfigError

__all__ = ["PLUGIN_API", "CodecSpec", "HostedToolKindSpec", "ProviderSpec", "SerializerSpec"]

PLUGIN_API = 1
"""The version of this contract; a spec declaring another ``api`` is reported incompatible."""

_PROVIDER = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")
_TARGET = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _check(spec: object, field: str, value: object, pattern: re.Pattern[str], shape: str) -> None:
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise InvalidSpecError(f"{type(spec).__name__}.{field} must be {shape}, got {value!r}")


def _check_common(spec: object, priority: object, api: object, sdk: object = None) -> None:
    for field, value in (("priority", priority), ("api", api)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidSpecError(f"{type(spec).__name__}.{field} must be an int, got {value!r}")
    if sdk is not None:
        if not isinstance(sdk, str):
            raise InvalidSpecError(f"{type(spec).__name__}.sdk must be a string, got {sdk!r}")
        try:
            Requirement.parse(sdk)
        except PluginConfigError as exc:
            raise InvalidSpecError(
                f"{type(spec).__name__}.sdk must be a requirement like 'openai>=1.66,<4': {exc}"
            ) from None


_PROVIDER_SHAPE = "a provider name matching ^[a-z0-9][a-z0-9_-]{0,63}$"
_KIND_SHAPE = "a kind matching ^[a-z][a-z0-9_]{0,63}$"
_TARGET_SHAPE = "a dotted path 'package.module:Attribute'"


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """A provider adapter: ``load_adapter(name, **options)`` builds ``adapter(**options)``.

    ``sdk`` is a requirement string (``"openai>=1.66,<4"``) checked against the installed
    distribution before the adapter is imported; a missing or too-old SDK makes the provider
    *unavailable* with the reason, instead of failing at import. ``priority`` settles two
    plugins offering the same provider name (higher wins; a tie is a conflict).
    """

    name: str
    adapter: str
    sdk: str | None = None
    description: str = ""
    api: int = PLUGIN_API
    priority: int = 0

    def __post_init__(self) -> None:
        _check(self, "name", self.name, _PROVIDER, _PROVIDER_SHAPE)
        _check(self, "adapter", self.adapter, _TARGET, _TARGET_SHAPE)
        _check_common(self, self.priority, self.api, self.sdk)


@dataclass(frozen=True, slots=True)
class HostedToolKindSpec:
    """A hosted tool kind and where its config and output types live."""

    kind: str
    config: str
    output: str
    description: str = ""
    api: int = PLUGIN_API
    priority: int = 0

    def __post_init__(self) -> None:
        _check(self, "kind", self.kind, _KIND, _KIND_SHAPE)
        _check(self, "config", self.config, _TARGET, _TARGET_SHAPE)
        _check(self, "output", self.output, _TARGET, _TARGET_SHAPE)
        _check_common(self, self.priority, self.api)


@dataclass(frozen=True, slots=True)
class CodecSpec:
    """A hosted-tool codec for ``(provider, kind)``: ``factory()`` returns the codec.

    Among several codecs for one key, a user pin wins, then the ``affordance_resolve_conflict``
    hook, then the highest ``priority``; a tie is a conflict error naming both distributions.
    ``sdk`` optionally names an SDK the codec itself needs (most need none: codecs work on
    JSON-like dicts).
    """

    provider: str
    kind: str
    factory: str
    priority: int = 0
    sdk: str | None = None
    api: int = PLUGIN_API

    def __post_init__(self) -> None:
        _check(self, "provider", self.provider, _PROVIDER, _PROVIDER_SHAPE)
        _check(self, "kind", self.kind, _KIND, _KIND_SHAPE)
        _check(self, "factory", self.factory, _TARGET, _TARGET_SHAPE)
        _check_common(self, self.priority, self.api, self.sdk)


@dataclass(frozen=True, slots=True)
class SerializerSpec:
    """A replacement tool serializer for a provider (``role`` is e.g. ``"tool"``)."""

    provider: str
    role: str
    factory: str
    priority: int = 0
    api: int = PLUGIN_API

    def __post_init__(self) -> None:
        _check(self, "provider", self.provider, _PROVIDER, _PROVIDER_SHAPE)
        _check(self, "role", self.role, _KIND, "a role matching ^[a-z][a-z0-9_]{0,63}$")
        _check(self, "factory", self.factory, _TARGET, _TARGET_SHAPE)
        _check_common(self, self.priority, self.api)
