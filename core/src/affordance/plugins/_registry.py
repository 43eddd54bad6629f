"""The registry: every contribution by key, resolved to one winner per key on first use.

The rules, in order, for a key with several contributions: the user's pin, then the
``affordance_resolve_conflict`` hook, then the highest ``priority``; a remaining tie raises a
:class:`ConflictError` when that key is first used. Load order never decides. Code named by a
contribution (an adapter class, a codec factory) is imported only when it is first asked for,
after its SDK requirement has been checked.
"""

from __future__ import annotations

import importlib
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from affordance.plugins._contributions import Category, Contribution, ContributionKey
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins._requirements import unmet_reason
from affordance.plugins.errors import (
    CodecConflictError,
    ConflictError,
    PinError,
    PluginError,
    PluginUnavailableError,
    ProviderConflictError,
    UnknownProviderError,
)
from affordance.plugins.specs import HostedToolKindSpec, ProviderSpec

if TYPE_CHECKING:
    from affordance.adapters.base import ProviderAdapter
    from affordance.tools.hosted import HostedToolCodec

__all__ = ["Registry", "Resolver"]

Resolver = Callable[[ContributionKey, tuple[Contribution, ...]], Contribution | None]
"""Asks the ``affordance_resolve_conflict`` hook to choose among tied candidates."""

_CONFLICT_ERRORS: dict[str, type[ConflictError]] = {
    "codec": CodecConflictError,
    "provider": ProviderConflictError,
}
_NO_CHOICE = object()


def _import_target(contribution: Contribution) -> Any:
    module_name, _, attribute = contribution.target.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            value = getattr(value, part)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # any import failure (sys.exit() too) makes it unavailable
        raise PluginUnavailableError(
            f"{contribution.key} from {contribution.origin} cannot be imported from "
            f"{contribution.target}: {type(exc).__name__}: {exc}"
        ) from exc
    return value


class Registry:
    """What the loaded plugins contribute, resolved lazily and thread-safely.

    Built by :class:`~affordance.plugins.PluginHost` (``host.registry()``); a snapshot: a later
    ``host.register()`` or ``host.pin()`` builds a new one.
    """

    def __init__(
        self,
        contributions: Iterable[Contribution],
        *,
        records: Sequence[PluginRecord] = (),
        pins: Mapping[ContributionKey, str] | None = None,
        resolver: Resolver | None = None,
    ) -> None:
        by_key: dict[ContributionKey, list[Contribution]] = defaultdict(list)
        for contribution in contributions:
            by_key[contribution.key].append(contribution)
        self._by_key = {key: tuple(found) for key, found in sorted(by_key.items())}
        self._records = tuple(records)
        self._pins = dict(pins or {})
        self._resolver = resolver
        self._lock = threading.RLock()
        self._chosen: dict[ContributionKey, Contribution | None] = {}
        self._loaded: dict[ContributionKey, Any] = {}
        self._unmet: dict[str, str | None] = {}

    # -- what is there -----------------------------------------------------------------------

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

    # -- resolution --------------------------------------------------------------------------

    def resolve(self, key: ContributionKey) -> Contribution | None:
        """The contribution that wins ``key`` (None if nobody contributes it).

        Raises :class:`ConflictError` for an unsettled tie and :class:`PinError` for a pin
        that names no candidate; both are raised again on every use, never cached away.
        """
        with self._lock:
            if key in self._chosen:
                return self._chosen[key]
            chosen = self._decide(key)
            self._chosen[key] = chosen
            return chosen

    def _decide(self, key: ContributionKey) -> Contribution | None:
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
            candidates = pinned
        if len(candidates) == 1:
            return candidates[0]
        if self._resolver is not None:
            choice = self._resolver(key, candidates)
            if choice is not None:
                return choice
        top = max(c.priority for c in candidates)
        best = tuple(c for c in candidates if c.priority == top)
        if len(best) == 1:
            return best[0]
        raise _CONFLICT_ERRORS.get(key.category, ConflictError)(key, best)

    def conflicts(self) -> tuple[PluginError, ...]:
        """The error each unresolvable key would raise on use (ties and unmatched pins)."""
        found: list[PluginError] = []
        for key in self._by_key:
            try:
                self.resolve(key)
            except (ConflictError, PinError) as exc:
                found.append(exc)
        return tuple(found)

    def selected(self, contribution: Contribution) -> bool | None:
        """Whether ``contribution`` wins its key; None when the key cannot be resolved."""
        try:
            return self.resolve(contribution.key) is contribution
        except (ConflictError, PinError):
            return None

    # -- availability --------------------------------------------------------------------------

    def unavailable_reason(self, contribution: Contribution) -> str | None:
        """Why ``contribution`` cannot be used (its SDK is missing or too old), or None.

        Checks installed metadata only; imports nothing.
        """
        sdk = contribution.sdk
        if sdk is None:
            return None
        with self._lock:
            if sdk not in self._unmet:
                self._unmet[sdk] = unmet_reason(sdk)
            return self._unmet[sdk]

    def _usable(self, key: ContributionKey) -> Contribution | None:
        chosen = self.resolve(key)
        if chosen is None:
            return None
        reason = self.unavailable_reason(chosen)
        if reason is not None:
            raise PluginUnavailableError(f"{key} from {chosen.origin} is unavailable: {reason}")
        return chosen

    def _load(self, key: ContributionKey, build: Callable[[Contribution], Any]) -> Any:
        with self._lock:
            if key in self._loaded:
                return self._loaded[key]
            chosen = self._usable(key)
            if chosen is None:
                return _NO_CHOICE
            value = build(chosen)
            self._loaded[key] = value
            return value

    # -- providers -----------------------------------------------------------------------------

    def provider_names(self) -> tuple[str, ...]:
        """Every provider name some plugin offers (available or not), sorted."""
        return tuple(key.parts[0] for key in self.keys("provider"))

    def provider(self, name: str) -> ProviderSpec | None:
        chosen = self.resolve(ContributionKey.provider(name))
        return chosen.spec if chosen is not None and isinstance(chosen.spec, ProviderSpec) else None

    def adapter_class(self, name: str) -> type[ProviderAdapter]:
        """The adapter class of provider ``name``, imported now if it was not yet."""
        value = self._load(ContributionKey.provider(name), self._import_adapter)
        if value is _NO_CHOICE:
            raise UnknownProviderError(self._describe_unknown_provider(name))
        adapter: type[ProviderAdapter] = value
        return adapter

    def load_adapter(self, name: str, **options: Any) -> ProviderAdapter:
        """Build provider ``name``'s adapter with ``options`` (``model=...``, ``client=...``)."""
        return self.adapter_class(name)(**options)

    @staticmethod
    def _import_adapter(chosen: Contribution) -> type[ProviderAdapter]:
        from affordance.adapters.base import ProviderAdapter  # only when used

        adapter = _import_target(chosen)
        if not (isinstance(adapter, type) and issubclass(adapter, ProviderAdapter)):
            raise PluginUnavailableError(
                f"{chosen.key} from {chosen.origin}: {chosen.target} is not a ProviderAdapter "
                f"subclass (got {adapter!r})"
            )
        return adapter

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
        parts = [f"no provider named {name!r}."]
        parts.append(f"Available: {', '.join(available)}." if available else "Available: none.")
        if unavailable:
            parts.append(f"Unavailable: {', '.join(unavailable)}.")
        if not available and not unavailable:
            parts.append("Install a provider plugin, e.g. `pip install affordance-openai`.")
        troubled = [
            r for r in self._records if r.status not in (PluginStatus.LOADED, PluginStatus.BLOCKED)
        ]
        if troubled:
            names = ", ".join(f"{r.label}: {r.status}" for r in troubled)
            parts.append(f"Plugins not loaded: {names}; run `affordance plugins` for reasons.")
        return " ".join(parts)

    # -- hosted tools ----------------------------------------------------------------------------

    def codec(self, provider: str, kind: str) -> HostedToolCodec[Any, Any] | None:
        """The codec for hosted tool ``kind`` on ``provider``, built on first use; None when no
        plugin offers one. Raises :class:`CodecConflictError` for a tie and
        :class:`PluginUnavailableError` when the chosen codec's SDK or import fails."""
        value = self._load(ContributionKey.codec(provider, kind), self._build_codec)
        if value is _NO_CHOICE:
            return None
        codec: HostedToolCodec[Any, Any] = value
        return codec

    @staticmethod
    def _build_codec(chosen: Contribution) -> Any:
        factory = _import_target(chosen)
        try:
            codec = factory()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a failing factory (sys.exit() too) is the plugin's
            raise PluginUnavailableError(
                f"{chosen.key} from {chosen.origin}: {chosen.target}() raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        missing = [a for a in ("kind", "serialize", "parse_output") if not hasattr(codec, a)]
        kind = chosen.key.parts[1]
        if missing or codec.kind != kind:
            problem = f"lacks {', '.join(missing)}" if missing else f"has kind {codec.kind!r}"
            raise PluginUnavailableError(
                f"{chosen.key} from {chosen.origin}: {chosen.target}() built a codec that "
                f"{problem}; a HostedToolCodec for kind {kind!r} was expected"
            )
        return codec

    def providers_supporting(self, kind: str) -> tuple[str, ...]:
        """The providers some plugin offers a codec for ``kind`` on, sorted."""
        return tuple(sorted({key.parts[0] for key in self.keys("codec") if key.parts[1] == kind}))

    def hosted_tool_kinds(self) -> tuple[str, ...]:
        return tuple(key.parts[0] for key in self.keys("hosted_tool_kind"))

    def hosted_tool_kind(self, kind: str) -> HostedToolKindSpec | None:
        chosen = self.resolve(ContributionKey.hosted_tool_kind(kind))
        spec = chosen.spec if chosen is not None else None
        return spec if isinstance(spec, HostedToolKindSpec) else None

    # -- serializers -----------------------------------------------------------------------------

    def serializer(self, provider: str, role: str) -> Any | None:
        """The serializer a plugin registered for ``(provider, role)``, built on first use."""
        value = self._load(ContributionKey.serializer(provider, role), self._build_serializer)
        return None if value is _NO_CHOICE else value

    @staticmethod
    def _build_serializer(chosen: Contribution) -> Any:
        factory = _import_target(chosen)
        try:
            return factory()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a failing factory (sys.exit() too) is the plugin's
            raise PluginUnavailableError(
                f"{chosen.key} from {chosen.origin}: {chosen.target}() raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc
