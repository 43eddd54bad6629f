"""The registry: every contribution by key, resolved to one winner per key on first use (a pin,
then the highest ``priority``: ``specs/PLUGINS.md``, "Resolution"). A contribution's code is
imported (``_targets``) only when first asked for, after its SDK requirement is checked."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

from affordance._frozen import frozen
from affordance.plugins import _targets
from affordance.plugins._contributions import Category, Contribution, ContributionKey
from affordance.plugins._records import UNHEALTHY, PluginRecord
from affordance.plugins.errors import (
    CodecConflictError,
    ConflictError,
    PinError,
    PluginError,
    PluginUnavailableError,
    ProviderConflictError,
    SerializerConflictError,
    UnknownProviderError,
)
from affordance.plugins.requirements import unmet_reason
from affordance.plugins.specs import SERIALIZER_ROLES, HostedToolKindSpec, ProviderSpec

if TYPE_CHECKING:
    from affordance.runtime.loop.evaluator import Evaluator
    from affordance.runtime.model.serializers import (
        OutputSerializer,
        ToolResultSerializer,
        ToolSerializer,
    )
    from affordance.tools.hosted import HostedToolCodec

__all__ = ["Decision", "Registry"]

T = TypeVar("T")

_CONFLICT_ERRORS: dict[str, type[ConflictError]] = {
    "codec": CodecConflictError,
    "provider": ProviderConflictError,
    "serializer": SerializerConflictError,
}


@frozen
class Decision:
    """Who wins a key and why: ``"only"`` (the one contribution), ``"priority"`` (the highest of
    several) or ``"pin"`` (the user's ``AFFORDANCE_PIN`` / ``host.pin``)."""

    winner: Contribution
    reason: Literal["only", "priority", "pin"]
    rivals: tuple[Contribution, ...] = ()

    def describe(self) -> str:
        if self.reason == "only":
            return "the only contribution"
        if self.reason == "pin":
            return f"pinned to {self.winner.pin_name}"
        beaten = ", ".join(f"{c.pin_name} ({c.priority})" for c in self.rivals)
        return f"priority {self.winner.priority} over {beaten}"


class Registry:
    """What the loaded plugins contribute, resolved lazily and thread-safely: a snapshot from
    ``host.registry()``, which a later ``host.register()`` or ``host.pin()`` replaces."""

    def __init__(
        self,
        contributions: Iterable[Contribution],
        *,
        records: Sequence[PluginRecord] = (),
        pins: Mapping[ContributionKey, str] | None = None,
    ) -> None:
        by_key: dict[ContributionKey, list[Contribution]] = defaultdict(list)
        for contribution in contributions:
            by_key[contribution.key].append(contribution)
        self._by_key = {key: tuple(found) for key, found in sorted(by_key.items())}
        self._records = tuple(records)
        self._pins = dict(pins or {})
        self._lock = threading.RLock()
        self._decided: dict[ContributionKey, Decision | None] = {}
        self._loaded: dict[tuple[ContributionKey, Callable[[Contribution], Any]], Any] = {}
        self._unmet: dict[str, str | None] = {}

    @property
    def records(self) -> tuple[PluginRecord, ...]:
        """The plugin table this registry was built from."""
        return self._records

    def keys(self, category: Category | None = None) -> tuple[ContributionKey, ...]:
        """Every contributed key (of one category), sorted."""
        return tuple(k for k in self._by_key if category is None or k.category == category)

    def candidates(self, key: ContributionKey) -> tuple[Contribution, ...]:
        """Every contribution claiming ``key``, in plugin load order."""
        return self._by_key.get(key, ())

    def contributions(self) -> tuple[Contribution, ...]:
        return tuple(c for found in self._by_key.values() for c in found)

    def decision(self, key: ContributionKey) -> Decision | None:
        """Who wins ``key`` and why (None if nobody contributes it). A tie raises
        :class:`ConflictError`, a pin naming no candidate :class:`PinError`, on every use."""
        with self._lock:
            if key not in self._decided:
                self._decided[key] = self._decide(key)
            return self._decided[key]

    def resolve(self, key: ContributionKey) -> Contribution | None:
        """The contribution that wins ``key`` (None if nobody does); see :meth:`decision`."""
        decided = self.decision(key)
        return None if decided is None else decided.winner

    def _decide(self, key: ContributionKey) -> Decision | None:
        candidates = self.candidates(key)
        if not candidates:
            return None
        pin = self._pins.get(key)
        if pin is not None:
            pinned = tuple(c for c in candidates if c.matches(pin))
            if not pinned:
                offered = ", ".join(c.origin for c in candidates)
                raise PinError(
                    f"{key} is pinned to {pin!r}, which does not contribute it; it comes from "
                    f"{offered}. Fix or remove the pin (AFFORDANCE_PIN or host.pin).",
                    key=key,
                )
            if len(pinned) == 1:
                others = tuple(c for c in candidates if c is not pinned[0])
                return Decision(pinned[0], "pin" if others else "only", others)
            candidates = pinned
        if len(candidates) == 1:
            return Decision(candidates[0], "only")
        top = max(c.priority for c in candidates)
        best = tuple(c for c in candidates if c.priority == top)
        if len(best) == 1:
            return Decision(best[0], "priority", tuple(c for c in candidates if c is not best[0]))
        raise _CONFLICT_ERRORS.get(key.category, ConflictError)(key, best)

    def conflicts(self) -> tuple[PluginError, ...]:
        """The error each unresolvable key would raise on use (ties and unmatched pins)."""
        found: list[PluginError] = []
        for key in self._by_key:
            try:
                self.decision(key)
            except (ConflictError, PinError) as exc:
                found.append(exc)
        return tuple(found)

    def selected(self, contribution: Contribution) -> bool | None:
        """Whether ``contribution`` wins its key; None when the key cannot be resolved."""
        try:
            return self.resolve(contribution.key) is contribution
        except (ConflictError, PinError):
            return None

    def unavailable_reason(self, contribution: Contribution) -> str | None:
        """Why ``contribution`` cannot be used (its SDK is missing or too old), or None; reads
        installed metadata only, importing nothing."""
        sdk = contribution.sdk
        if sdk is None:
            return None
        with self._lock:
            if sdk not in self._unmet:
                self._unmet[sdk] = unmet_reason(sdk)
            return self._unmet[sdk]

    def _load(self, key: ContributionKey, build: Callable[[Contribution], T]) -> T | None:
        """What ``build`` makes of the winner of ``key``, once per builder (a hosted tool kind's
        config and output types are two); None when nobody contributes ``key``."""
        with self._lock:
            if (key, build) in self._loaded:
                return cast("T", self._loaded[key, build])
            chosen = self.resolve(key)
            if chosen is None:
                return None
            reason = self.unavailable_reason(chosen)
            if reason is not None:
                raise PluginUnavailableError(f"{key} from {chosen.origin} is unavailable: {reason}")
            value = self._loaded[key, build] = build(chosen)
            return value

    def provider_names(self) -> tuple[str, ...]:
        """Every provider name some plugin offers (available or not), sorted."""
        return tuple(key.parts[0] for key in self.keys("provider"))

    def provider(self, name: str) -> ProviderSpec | None:
        chosen = self.resolve(ContributionKey.provider(name))
        return chosen.spec if chosen is not None and isinstance(chosen.spec, ProviderSpec) else None

    def adapter_class(self, name: str) -> type[Evaluator]:
        """The adapter class of provider ``name``, imported now if it was not yet."""
        adapter = self._load(ContributionKey.provider(name), _targets.import_adapter)
        if adapter is None:
            raise UnknownProviderError(self._describe_unknown_provider(name))
        return adapter

    def load_adapter(self, name: str, **options: Any) -> Evaluator:
        """Build provider ``name``'s adapter with ``options`` (``model=...``, ``client=...``),
        resolving its serializers and codecs through this registry."""
        options.setdefault("registry", self)
        return self.adapter_class(name)(**options)

    def _describe_unknown_provider(self, name: str) -> str:
        available: list[str] = []
        unavailable: list[str] = []
        for provider in self.provider_names():
            key = ContributionKey.provider(provider)
            reasons = {self.unavailable_reason(c) for c in self.candidates(key)}
            if None in reasons:
                available.append(provider)
            else:
                unavailable.append(f"{provider} ({'; '.join(sorted(r for r in reasons if r))})")
        parts = [f"no provider named {name!r}.", f"Available: {', '.join(available) or 'none'}."]
        if unavailable:
            parts.append(f"Unavailable: {', '.join(unavailable)}.")
        if not available and not unavailable:
            parts.append("Install a provider plugin, e.g. `pip install affordance-openai`.")
        troubled = [r for r in self._records if r.status in UNHEALTHY]
        if troubled:
            names = "; ".join(f"{r.label} {r.status}: {r.reason}" for r in troubled)
            parts.append(f"Plugins not loaded: {names}. Run `affordance plugins` for details.")
        return " ".join(parts)

    def codec(self, provider: str, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The codec for hosted tool ``kind`` on ``provider``, built on first use, or None; raises
        :class:`CodecConflictError` or :class:`PluginUnavailableError` (its SDK or import fails)."""
        return self._load(ContributionKey.codec(provider, kind), _targets.build_codec)

    def providers_supporting(self, kind: str) -> tuple[str, ...]:
        """The providers some plugin offers a codec for ``kind`` on, sorted."""
        return tuple(sorted({key.parts[0] for key in self.keys("codec") if key.parts[1] == kind}))

    def hosted_tool_kinds(self) -> tuple[str, ...]:
        return tuple(key.parts[0] for key in self.keys("hosted_tool_kind"))

    def hosted_tool_kind(self, kind: str) -> HostedToolKindSpec | None:
        chosen = self.resolve(ContributionKey.hosted_tool_kind(kind))
        spec = chosen.spec if chosen is not None else None
        return spec if isinstance(spec, HostedToolKindSpec) else None

    def hosted_tool_config(self, kind: str) -> tuple[type[Any], Contribution] | None:
        """The config type registered for hosted tool ``kind`` and who registered it, imported
        on first use; None when no plugin defines the kind."""
        return self._load(ContributionKey.hosted_tool_kind(kind), _targets.import_config)

    def hosted_tool_output(self, kind: str) -> tuple[type[Any], Contribution] | None:
        """The output type of hosted tool ``kind`` (what its codecs' ``parse_output`` returns) and
        who registered it, or None; imported when an output is first read, not with the config."""
        return self._load(ContributionKey.hosted_tool_kind(kind), _targets.import_output)

    @overload
    def serializer(self, provider: str, role: Literal["tool"]) -> ToolSerializer | None: ...
    @overload
    def serializer(
        self, provider: str, role: Literal["tool_result"]
    ) -> ToolResultSerializer | None: ...
    @overload
    def serializer(self, provider: str, role: Literal["output"]) -> OutputSerializer | None: ...
    @overload
    def serializer(self, provider: str, role: str) -> Any: ...
    def serializer(self, provider: str, role: str) -> Any:
        """The serializer a plugin registered for ``(provider, role)``, built on first use; None
        when no plugin offers one. ``role`` is one of ``SERIALIZER_ROLES``."""
        if role not in SERIALIZER_ROLES:
            raise ValueError(f"unknown serializer role {role!r}; one of {SERIALIZER_ROLES}")
        return self._load(ContributionKey.serializer(provider, role), _targets.build_serializer)
