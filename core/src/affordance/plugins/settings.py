"""Which plugins load and how ties are settled: the ``AFFORDANCE_*`` environment variables,
overridable in code; ``specs/PLUGINS.md``, "Settings", has the table of variables."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict

from affordance._frozen import frozen
from affordance.plugins._base_errors import PluginConfigError
from affordance.plugins._contributions import ContributionKey
from affordance.plugins.requirements import canonical_name

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PluginOptions", "PluginSettings"]

AUTOLOAD = "AFFORDANCE_PLUGIN_AUTOLOAD"
DISABLE = "AFFORDANCE_DISABLE_PLUGINS"
LOAD = "AFFORDANCE_LOAD_PLUGINS"
STRICT = "AFFORDANCE_STRICT_PLUGINS"
PIN = "AFFORDANCE_PIN"
TRACE = "AFFORDANCE_TRACE_PLUGINS"
IMPORT_TIMEOUT = "AFFORDANCE_PLUGIN_IMPORT_TIMEOUT"
DEFAULT_IMPORT_TIMEOUT = 10.0

_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def _flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    raw = environ.get(name, "")
    value = raw.strip().lower()
    if not value:
        return default
    if value not in _TRUE | _FALSE:
        raise PluginConfigError(f"{name}={raw!r}: expected 1 or 0")
    return value in _TRUE


def _seconds(value: object, source: str, *, text: bool = False) -> float:
    """A positive, finite number of seconds: an int or a float, or a variable's ``text``."""
    seconds = math.nan
    if text and isinstance(value, str):
        with contextlib.suppress(ValueError):
            seconds = float(value)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise PluginConfigError(f"{source}={value!r}: expected a number of seconds above 0")
    return seconds


def _import_timeout(environ: Mapping[str, str]) -> float:
    raw = environ.get(IMPORT_TIMEOUT, "")
    return _seconds(raw, IMPORT_TIMEOUT, text=True) if raw.strip() else DEFAULT_IMPORT_TIMEOUT


def _names(raw: str | Iterable[str]) -> frozenset[str]:
    items = raw.split(",") if isinstance(raw, str) else raw
    return frozenset(canonical_name(item) for item in items if item.strip())


def _pins(
    raw: str | Mapping[ContributionKey | str | tuple[str, str], str],
) -> dict[ContributionKey, str]:
    pins: dict[ContributionKey, str] = {}
    if isinstance(raw, str):
        for entry in filter(None, (part.strip() for part in raw.split(","))):
            key_text, equals, dist = entry.partition("=")
            if not equals or not dist.strip() or not key_text.strip():
                raise PluginConfigError(
                    f"{PIN}: cannot read {entry!r}; write KEY=DIST, e.g. "
                    "openai.web_search=affordance-web-search"
                )
            pins[ContributionKey.parse(key_text)] = dist.strip()
        return pins
    return {ContributionKey.coerce(key): dist for key, dist in raw.items()}


class PluginOptions(TypedDict, total=False):
    """What code may set over the environment (None keeps it), by keyword, on ``PluginHost``,
    ``configure`` and ``PluginSettings.override``: ``autoload=False`` scans no entry points;
    ``strict=True`` raises for a broken plugin; ``disable`` adds names to
    ``AFFORDANCE_DISABLE_PLUGINS``; ``load`` replaces the allowlist (``[]`` loads none); ``pins``
    merge over ``AFFORDANCE_PIN``'s; ``import_timeout`` (seconds) replaces
    ``AFFORDANCE_PLUGIN_IMPORT_TIMEOUT``."""

    autoload: bool | None
    strict: bool | None
    disable: Iterable[str] | None
    load: Iterable[str] | None
    pins: Mapping[ContributionKey | str | tuple[str, str], str] | None
    import_timeout: float | None


@frozen
class PluginSettings:
    """What to load and how to settle ties: :meth:`from_environ`, then :meth:`override` in code.
    ``disable`` and ``load`` hold PEP 503 names; ``load=None`` means no allowlist."""

    autoload: bool = True
    strict: bool = False
    disable: frozenset[str] = frozenset()
    load: frozenset[str] | None = None
    pins: Mapping[ContributionKey, str] = field(default_factory=lambda: MappingProxyType({}))
    trace: bool = False
    import_timeout: float = DEFAULT_IMPORT_TIMEOUT

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> PluginSettings:
        env = os.environ if environ is None else environ
        load = env.get(LOAD)
        return cls(
            autoload=_flag(env, AUTOLOAD, default=True),
            strict=_flag(env, STRICT, default=False),
            disable=_names(env.get(DISABLE, "")),
            load=None if load is None else _names(load),
            pins=MappingProxyType(_pins(env.get(PIN, ""))),
            trace=_flag(env, TRACE, default=False),
            import_timeout=_import_timeout(env),
        )

    def override(self, **options: Unpack[PluginOptions]) -> PluginSettings:
        """These settings with ``options`` (:class:`PluginOptions`) over the environment's."""
        unknown = sorted(set(options) - set(PluginOptions.__annotations__))
        if unknown:
            raise TypeError(f"unknown plugin option(s) {', '.join(unknown)}")
        changes: dict[str, Any] = {k: v for k, v in options.items() if v is not None}
        for name in ("disable", "load"):
            if isinstance(changes.get(name), str):
                raise PluginConfigError(f"{name}= takes a list of names, not a string")
        if "disable" in changes:
            changes["disable"] = self.disable | _names(changes["disable"])
        if "load" in changes:
            changes["load"] = _names(changes["load"])
        if "pins" in changes:
            changes["pins"] = MappingProxyType({**self.pins, **_pins(changes["pins"])})
        if "import_timeout" in changes:
            changes["import_timeout"] = _seconds(changes["import_timeout"], "import_timeout")
        return replace(self, **changes)

    def is_disabled(self, *names: str | None) -> bool:
        return any(name is not None and canonical_name(name) in self.disable for name in names)

    def is_allowed(self, *names: str | None) -> bool:
        if self.load is None:
            return True
        return any(name is not None and canonical_name(name) in self.load for name in names)
