"""A contribution: one spec a plugin returned, with the key it claims and where it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from affordance._frozen import frozen
from affordance.plugins._base_errors import PluginConfigError
from affordance.plugins.requirements import canonical_name
from affordance.plugins.specs import CodecSpec, HostedToolKindSpec, ProviderSpec, SerializerSpec

__all__ = ["Category", "Contribution", "ContributionKey", "Spec", "key_of"]

Spec = Union[ProviderSpec, HostedToolKindSpec, CodecSpec, SerializerSpec]  # noqa: UP007
Category = Literal["provider", "hosted_tool_kind", "codec", "serializer"]
_ARITY: dict[str, int] = {"provider": 1, "hosted_tool_kind": 1, "codec": 2, "serializer": 2}


@dataclass(frozen=True, slots=True, order=True)
class ContributionKey:
    """What a contribution claims (``codec openai.web_search``, ``provider openai``); two
    contributions with one key compete (``specs/PLUGINS.md``, "Resolution")."""

    category: Category
    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.category not in _ARITY:
            raise PluginConfigError(
                f"unknown contribution category {self.category!r}; "
                f"expected one of {', '.join(_ARITY)}"
            )
        if len(self.parts) != _ARITY[self.category] or not all(self.parts):
            raise PluginConfigError(
                f"a {self.category} key has {_ARITY[self.category]} non-empty part(s), "
                f"got {self.parts!r}"
            )

    @classmethod
    def provider(cls, name: str) -> ContributionKey:
        return cls("provider", (name,))

    @classmethod
    def hosted_tool_kind(cls, kind: str) -> ContributionKey:
        return cls("hosted_tool_kind", (kind,))

    @classmethod
    def codec(cls, provider: str, kind: str) -> ContributionKey:
        return cls("codec", (provider, kind))

    @classmethod
    def serializer(cls, provider: str, role: str) -> ContributionKey:
        return cls("serializer", (provider, role))

    @classmethod
    def parse(cls, text: str) -> ContributionKey:
        """Read the pin syntax: ``openai.web_search`` (a codec), ``openai`` (a provider), or
        ``CATEGORY:dotted.name`` (``serializer:openai.tool``, ``hosted_tool_kind:web_search``)."""
        text = text.strip()
        category, _, rest = text.rpartition(":")
        parts = tuple(rest.split("."))
        if category:
            if category not in _ARITY:
                raise PluginConfigError(
                    f"{text!r}: unknown category {category!r}; expected one of {', '.join(_ARITY)}"
                )
            return cls(category, parts)  # type: ignore[arg-type]
        return cls("codec" if len(parts) == 2 else "provider", parts)

    @classmethod
    def coerce(cls, key: ContributionKey | str | tuple[str, str]) -> ContributionKey:
        """Accept a key, its pin text, or a ``(provider, kind)`` codec tuple."""
        if isinstance(key, ContributionKey):
            return key
        if isinstance(key, str):
            return cls.parse(key)
        candidate: object = key
        if isinstance(candidate, tuple) and len(candidate) == 2:
            return cls.codec(str(candidate[0]), str(candidate[1]))
        raise PluginConfigError(
            f"cannot read {key!r} as a key: pass ('provider', 'kind'), 'provider' or "
            "'category:dotted.name'"
        )

    @property
    def dotted(self) -> str:
        return ".".join(self.parts)

    @property
    def pin_text(self) -> str:
        """How this key is written in ``AFFORDANCE_PIN``."""
        if self.category in ("codec", "provider"):
            return self.dotted
        return f"{self.category}:{self.dotted}"

    @property
    def pin_argument(self) -> str:
        """How this key is passed to ``host.pin`` (for messages)."""
        if self.category == "codec":
            return repr(self.parts)
        return repr(self.pin_text)

    def __str__(self) -> str:
        return f"{self.category} {self.dotted}"


def key_of(spec: Spec) -> ContributionKey:
    """The key a spec claims."""
    if isinstance(spec, ProviderSpec):
        return ContributionKey.provider(spec.name)
    if isinstance(spec, HostedToolKindSpec):
        return ContributionKey.hosted_tool_kind(spec.kind)
    if isinstance(spec, CodecSpec):
        return ContributionKey.codec(spec.provider, spec.kind)
    return ContributionKey.serializer(spec.provider, spec.role)


@frozen
class Contribution:
    """A spec together with the plugin (and distribution) that contributed it."""

    spec: Spec
    plugin: str
    distribution: str | None = None
    version: str | None = None
    key: ContributionKey = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", key_of(self.spec))

    @property
    def priority(self) -> int:
        return self.spec.priority

    @property
    def target(self) -> str:
        """The dotted path of the code this contribution names."""
        spec = self.spec
        if isinstance(spec, ProviderSpec):
            return spec.adapter
        if isinstance(spec, HostedToolKindSpec):
            return spec.config
        return spec.factory

    @property
    def sdk(self) -> str | None:
        spec = self.spec
        return spec.sdk if isinstance(spec, (ProviderSpec, CodecSpec)) else None

    @property
    def pin_name(self) -> str:
        """The name a pin or a disable list uses for this contribution's origin."""
        return self.distribution or self.plugin

    @property
    def origin(self) -> str:
        """Where it came from, for messages: ``affordance-acme 1.0 (plugin 'acme')``."""
        if self.distribution is None:
            return f"plugin {self.plugin!r} (registered in code)"
        version = f" {self.version}" if self.version else ""
        return f"{self.distribution}{version} (plugin {self.plugin!r})"

    def matches(self, name: str) -> bool:
        """Whether ``name`` (a distribution or plugin name) designates this contribution."""
        return canonical_name(name) in {
            canonical_name(n) for n in (self.plugin, self.distribution) if n
        }
