"""What plugins contribute: the specs the ``affordance_*`` hooks return, naming code by dotted
path (imported on first use) and checking their fields when built, so a malformed one fails
inside the plugin that made it. ``specs/PLUGINS.md``, "What a plugin is"."""

from __future__ import annotations

import re

from affordance._frozen import frozen
from affordance.plugins._base_errors import InvalidSpecError, PluginConfigError
from affordance.plugins.requirements import parse_requirement

__all__ = [
    "PLUGIN_API",
    "SERIALIZER_ROLES",
    "CodecSpec",
    "HostedToolKindSpec",
    "ProviderSpec",
    "SerializerSpec",
]

PLUGIN_API = 1
"""The version of this contract; a spec declaring another ``api`` is reported incompatible."""

SERIALIZER_ROLES = ("tool", "tool_result", "output")
"""The roles of the provider contract, each with its protocol in ``affordance.adapters``
(``specs/PLUGINS.md``, "The provider contract: serializer roles")."""
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

# Each field shape: the pattern a value must match in full, and how a message names it.
_PROVIDER = (
    re.compile(r"[a-z0-9][a-z0-9_-]{0,63}"),
    "a provider name matching ^[a-z0-9][a-z0-9_-]{0,63}$",
)
_KIND = (re.compile(r"[a-z][a-z0-9_]{0,63}"), "a kind matching ^[a-z][a-z0-9_]{0,63}$")
_ROLE = (re.compile("|".join(SERIALIZER_ROLES)), f"one of {', '.join(SERIALIZER_ROLES)}")
_TARGET = (
    re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*"),
    "a dotted path 'package.module:Attribute'",
)


def _check(spec: object, **shapes: tuple[re.Pattern[str], str]) -> None:
    """Check the named string fields against their shapes, then ``priority``, ``api``, ``sdk``."""
    name = type(spec).__name__
    for field, (pattern, shape) in shapes.items():
        value = getattr(spec, field)
        if not isinstance(value, str) or pattern.fullmatch(value) is None:
            raise InvalidSpecError(f"{name}.{field} must be {shape}, got {value!r}")
    for field in ("priority", "api"):
        value = getattr(spec, field)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidSpecError(f"{name}.{field} must be an int, got {value!r}")
    sdk = getattr(spec, "sdk", None)
    if sdk is not None:
        if not isinstance(sdk, str):
            raise InvalidSpecError(f"{name}.sdk must be a string, got {sdk!r}")
        try:
            parse_requirement(sdk)
        except PluginConfigError as exc:
            raise InvalidSpecError(
                f"{name}.sdk must be a requirement like 'openai>=1.66,<4': {exc}"
            ) from None


@frozen
class ProviderSpec:
    """A provider adapter: ``load_adapter(name, **options)`` builds ``adapter(**options)``.

    ``sdk`` (``"openai>=1.66,<4"``) is checked before the adapter is imported: a missing or
    too-old SDK makes the provider *unavailable*, with the reason. The highest ``priority`` wins
    a provider name (a tie is a conflict). ``api_key_env`` names the variables the adapter reads
    its key from when it builds its own client (``affordance doctor`` says whether one is set)."""

    name: str
    adapter: str
    sdk: str | None = None
    description: str = ""
    api: int = PLUGIN_API
    priority: int = 0
    api_key_env: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check(self, name=_PROVIDER, adapter=_TARGET)
        names: object = self.api_key_env
        if not isinstance(names, tuple) or not all(
            isinstance(n, str) and _ENV_NAME.fullmatch(n) for n in names
        ):
            raise InvalidSpecError(
                f"ProviderSpec.api_key_env must be a tuple of environment variable names, "
                f"got {names!r}"
            )


@frozen
class HostedToolKindSpec:
    """A hosted tool kind and where its config and output types live."""

    kind: str
    config: str
    output: str
    description: str = ""
    api: int = PLUGIN_API
    priority: int = 0

    def __post_init__(self) -> None:
        _check(self, kind=_KIND, config=_TARGET, output=_TARGET)


@frozen
class CodecSpec:
    """A hosted-tool codec for ``(provider, kind)``: ``factory()`` returns the codec. A pin, then
    the highest ``priority``, picks among several (a tie is a conflict); ``sdk`` names an SDK the
    codec itself needs, if any (most need none: codecs work on JSON-like dicts)."""

    provider: str
    kind: str
    factory: str
    priority: int = 0
    sdk: str | None = None
    api: int = PLUGIN_API

    def __post_init__(self) -> None:
        _check(self, provider=_PROVIDER, kind=_KIND, factory=_TARGET)


@frozen
class SerializerSpec:
    """A serializer for one role (:data:`SERIALIZER_ROLES`) of a provider's wire format:
    ``factory()`` returns it. A provider plugin registers its own at priority 0; a third party
    replaces one with a higher priority (or a user pin)."""

    provider: str
    role: str
    factory: str
    priority: int = 0
    api: int = PLUGIN_API

    def __post_init__(self) -> None:
        _check(self, provider=_PROVIDER, role=_ROLE, factory=_TARGET)
