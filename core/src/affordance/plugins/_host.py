"""``PluginHost``: a pluggy ``PluginManager`` plus our loader, the plugin table and the registry.

Nothing happens at construction but reading settings. The first :meth:`PluginHost.registry`
call imports the entry-point plugins, each in isolation and within ``import_timeout`` seconds
(on a daemon thread: a hung import is abandoned and its plugin failed, so the registry is always
built); reports plugins implementing unknown hooks, and collects every plugin's specs one hook
implementation at a time, so one raising plugin is recorded as failed and contributes nothing
while the others carry on. "Raising" means any ``BaseException`` but ``KeyboardInterrupt``: a
plugin calling ``sys.exit()`` at import must not take the host, or the process, down with it.
The result is cached until :meth:`PluginHost.register`, :meth:`PluginHost.unregister` or
:meth:`PluginHost.pin` invalidates it.
"""

from __future__ import annotations

import difflib
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

import pluggy

from affordance.plugins import hookspecs
from affordance.plugins._bounded_import import ImportTimeoutError, import_within, on_import_thread
from affordance.plugins._collect import collect, describe
from affordance.plugins._contributions import ContributionKey
from affordance.plugins._loader import Candidate, discover, select
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins._registry import Registry
from affordance.plugins.errors import PluginError, PluginLoadError
from affordance.plugins.settings import PluginOptions, PluginSettings

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PluginHost"]

_UNHEALTHY = (PluginStatus.FAILED, PluginStatus.DUPLICATE, PluginStatus.INCOMPATIBLE)


@dataclass(slots=True)
class _Entry:
    """A row of the table and the plugin object behind it (None when not registered)."""

    record: PluginRecord
    plugin: object | None = None
    collected: bool = False


class PluginHost:
    """Finds, loads and registers plugins, and builds the :class:`Registry` of what they offer.

    ``PluginHost()`` reads the ``AFFORDANCE_*`` environment variables (or ``environ``); keyword
    arguments (:class:`PluginOptions`) override them. ``PluginHost(autoload=False)`` scans no
    entry points: only what you :meth:`register` counts, which is what tests want.
    """

    def __init__(
        self, *, environ: Mapping[str, str] | None = None, **options: Unpack[PluginOptions]
    ) -> None:
        self.settings = PluginSettings.from_environ(environ).override(**options)
        self._pm = pluggy.PluginManager(hookspecs.PROJECT)
        self._pm.add_hookspecs(hookspecs)
        if self.settings.trace:
            self._pm.trace.root.setwriter(sys.stderr.write)
            self._pm.enable_tracing()
        self._lock = threading.RLock()
        self._entries: list[_Entry] = []
        self._autoloaded = False
        self._building = False
        self._importing = False
        self._pins: dict[ContributionKey, str] = dict(self.settings.pins)
        self._registry: Registry | None = None

    def __repr__(self) -> str:
        state = "built" if self._registry is not None else "not built"
        return f"<PluginHost {len(self._entries)} plugin(s), registry {state}>"

    @property
    def pluginmanager(self) -> pluggy.PluginManager:
        """The underlying pluggy manager, e.g. to call hooks a plugin added."""
        return self._pm

    @property
    def pins(self) -> Mapping[ContributionKey, str]:
        """The pins in force: from ``AFFORDANCE_PIN``, the constructor and :meth:`pin`."""
        with self._lock:
            return MappingProxyType(dict(self._pins))

    # -- changing what is registered -------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None) -> str:
        """Register a plugin object (a module or an instance with ``@hookimpl`` methods).

        Raises :class:`PluginLoadError` if pluggy rejects it (a hook argument not in the spec,
        or the name is taken). Unknown hooks are reported when the registry is next built.
        """
        with self._lock:
            plugin_name = name or self._pm.get_canonical_name(plugin)
            problem = self._try_register(plugin, plugin_name)
            if problem is not None:
                raise PluginLoadError(
                    f"plugin {plugin_name!r} cannot be registered: {problem}", plugin=plugin_name
                )
            record = PluginRecord(plugin_name, PluginStatus.LOADED, source="registered")
            self._entries.append(_Entry(record, plugin))
            self._registry = None
            return plugin_name

    def registered_in_code(self) -> tuple[tuple[str, object], ...]:
        """``(name, plugin)`` of every plugin given to :meth:`register` and still registered."""
        with self._lock:
            return tuple(
                (entry.record.name, entry.plugin)
                for entry in self._entries
                if entry.record.source == "registered" and entry.plugin is not None
            )

    def unregister(self, name: str) -> None:
        """Remove a plugin (registered in code or loaded from an entry point) and its row."""
        with self._lock:
            kept = [e for e in self._entries if e.record.name != name]
            for entry in self._entries:
                plugin = entry.plugin
                if (
                    entry.record.name == name
                    and plugin is not None
                    and (self._pm.is_registered(plugin))
                ):
                    self._pm.unregister(plugin)
            self._entries = kept
            self._registry = None

    def pin(self, key: ContributionKey | str | tuple[str, str], *, dist: str) -> None:
        """Make ``dist`` (a distribution or plugin name) win ``key`` whatever the priorities.

        ``key`` is ``("openai", "web_search")`` for a codec, ``"openai"`` for a provider, or
        ``"serializer:openai.tool"``; ``AFFORDANCE_PIN`` accepts the same keys.
        """
        with self._lock:
            self._pins[ContributionKey.coerce(key)] = dist
            self._registry = None

    def unpin(self, key: ContributionKey | str | tuple[str, str]) -> None:
        with self._lock:
            self._pins.pop(ContributionKey.coerce(key), None)
            self._registry = None

    def _try_register(self, plugin: object, name: str) -> str | None:
        """Register with pluggy; on failure undo any partial registration, return why."""
        already = self._pm.is_registered(plugin)
        try:
            self._pm.register(plugin, name)  # runs the plugin's historic hooks
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - isolation: the failure is recorded
            if not already and self._pm.is_registered(plugin):
                self._pm.unregister(plugin)
            return describe(exc)
        return None

    # -- loading ---------------------------------------------------------------------------------

    def load(self) -> None:
        """Import the entry-point plugins now (once per host); :meth:`registry` does it first.

        A ``KeyboardInterrupt`` (from a plugin, or Ctrl-C while waiting for an import) leaves
        nothing loaded, so the next call loads again.
        """
        self._refuse_from_a_plugin_import()
        with self._lock:
            if self._autoloaded:
                return
            if not self.settings.autoload:
                self._autoloaded = True
                return
            loaded: list[_Entry] = []
            self._importing = True
            try:
                for candidate, verdict in select(discover(), self.settings):
                    loaded.append(
                        self._load_candidate(candidate) if verdict is None else _Entry(verdict)
                    )
            except BaseException:
                for entry in loaded:
                    if entry.plugin is not None and self._pm.is_registered(entry.plugin):
                        self._pm.unregister(entry.plugin)
                raise
            finally:
                self._importing = False
            self._autoloaded = True
            self._entries[:0] = loaded
            self._registry = None

    def _refuse_from_a_plugin_import(self) -> None:
        """A plugin's import asking this host for its plugins while they are being imported
        would wait for the caller that waits for it: refuse at once, as from a hook."""
        if self._importing and on_import_thread():
            raise PluginError(
                "the plugin registry was asked for while it is being built (from a plugin's "
                "import?)"
            )

    def _load_candidate(self, candidate: Candidate) -> _Entry:
        try:
            plugin = import_within(candidate.entry_point, self.settings.import_timeout)
        except KeyboardInterrupt:
            raise
        except ImportTimeoutError as exc:
            return _Entry(candidate.record(PluginStatus.FAILED, str(exc)))
        except BaseException as exc:  # noqa: BLE001 - even sys.exit() at import is the plugin's
            return _Entry(candidate.record(PluginStatus.FAILED, f"import failed: {describe(exc)}"))
        problem = self._try_register(plugin, candidate.name)
        if problem is not None:
            reason = f"registration failed: {problem}"
            return _Entry(candidate.record(PluginStatus.FAILED, reason))
        return _Entry(candidate.record(PluginStatus.LOADED), plugin)

    def records(self) -> tuple[PluginRecord, ...]:
        """The plugin table: entry-point plugins sorted by (name, distribution), then the ones
        registered in code. Loads plugins if needed; never raises for a broken plugin."""
        self._refuse_from_a_plugin_import()
        with self._lock:
            self._prepare()
            return tuple(entry.record for entry in self._entries)

    def registry(self) -> Registry:
        """The registry, built on first use and cached (thread-safe).

        In strict mode a failed, duplicate or incompatible plugin raises
        :class:`PluginLoadError` here instead of being skipped.
        """
        built = self._registry
        if built is not None:
            return built
        self._refuse_from_a_plugin_import()
        with self._lock:
            if self._registry is not None:
                return self._registry
            self._prepare()
            if self.settings.strict:
                self._raise_first_problem()
            self._registry = Registry(
                (c for e in self._entries if e.plugin is not None for c in e.record.contributions),
                records=tuple(entry.record for entry in self._entries),
                pins=self._pins,
            )
            return self._registry

    def _prepare(self) -> None:
        if self._building:
            raise PluginError(
                "the plugin registry was asked for while it is being built (from a plugin's hook?)"
            )
        self._building = True
        try:
            self.load()
            self._reject_unknown_hooks()
            for entry in self._entries:
                if entry.plugin is not None and not entry.collected:
                    self._collect(entry)
        finally:
            self._building = False

    def _raise_first_problem(self) -> None:
        for entry in self._entries:
            record = entry.record
            if record.status in _UNHEALTHY:
                raise PluginLoadError(
                    f"plugin {record.label} {record.status}: {record.reason} "
                    "(strict mode: AFFORDANCE_STRICT_PLUGINS or strict=True)",
                    plugin=record.name,
                    distribution=record.distribution,
                    status=record.status.value,
                )

    def _fail(self, entry: _Entry, reason: str, status: PluginStatus = PluginStatus.FAILED) -> None:
        """Record a plugin as not working; it leaves pluggy and contributes nothing."""
        if entry.plugin is not None and self._pm.is_registered(entry.plugin):
            self._pm.unregister(entry.plugin)
        entry.plugin = None
        entry.record = replace(entry.record, status=status, reason=reason, contributions=())

    def _entry_of(self, plugin: object) -> _Entry | None:
        return next((e for e in self._entries if e.plugin is plugin), None)

    def _hooks_of(self, plugin: object) -> tuple[str, ...]:
        return tuple(sorted(caller.name for caller in self._pm.get_hookcallers(plugin) or ()))

    def _reject_unknown_hooks(self) -> None:
        """Fail every plugin implementing a hook nobody specified (pluggy's check_pending)."""
        while True:
            try:
                self._pm.check_pending()
            except pluggy.PluginValidationError as exc:
                offender = exc.plugin
                unknown = [
                    caller.name
                    for caller in self._pm.get_hookcallers(offender) or ()
                    if not caller.has_spec()
                ]
                known = [n for n in vars(self._pm.hook) if getattr(self._pm.hook, n).has_spec()]
                hints = [
                    f"{name} (did you mean {close[0]}?)" if close else name
                    for name in unknown
                    for close in [difflib.get_close_matches(name, known, n=1)]
                ]
                entry = self._entry_of(offender)
                if entry is None:  # registered on the pluginmanager directly
                    self._pm.unregister(offender)
                    continue
                self._fail(entry, f"implements unknown hook(s): {', '.join(hints)}")
            else:
                return

    def _collect(self, entry: _Entry) -> None:
        entry.collected = True
        plugin = entry.plugin
        entry.record = replace(entry.record, hooks=self._hooks_of(plugin))
        collected = collect(self._pm, plugin, entry.record)
        entry.record = replace(
            entry.record, contributions=collected.contributions, notes=collected.notes
        )
        if collected.failure is not None:
            self._fail(entry, collected.failure, collected.status)
