"""``PluginHost``: a pluggy ``PluginManager`` plus our loader, the plugin table and the registry,
loaded on first use (``specs/PLUGINS.md``, "Loading"). A plugin raising anything but
``KeyboardInterrupt`` is recorded as failed: ``sys.exit()`` at import must not end the process."""

from __future__ import annotations

import difflib
import importlib.metadata
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
from affordance.plugins._loader import discover, select
from affordance.plugins._records import UNHEALTHY, PluginRecord, PluginStatus
from affordance.plugins._registry import Registry
from affordance.plugins.errors import PluginError, PluginLoadError
from affordance.plugins.settings import PluginOptions, PluginSettings

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["PluginHost"]


@dataclass(slots=True)
class _Entry:
    """A row of the table and the plugin object behind it (None when not registered)."""

    record: PluginRecord
    plugin: object | None = None
    collected: bool = False


class PluginHost:
    """Finds, loads and registers plugins, and builds the :class:`Registry` of what they offer.

    It reads the ``AFFORDANCE_*`` variables (or ``environ``), which keyword arguments
    (:class:`PluginOptions`) override; with ``autoload=False`` only what you :meth:`register`
    counts (what tests want)."""

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

    def register(self, plugin: object, name: str | None = None) -> str:
        """Register a plugin object (a module or an instance with ``@hookimpl`` methods); raises
        :class:`PluginLoadError` if pluggy rejects it. Unknown hooks fail it at the next build."""
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
            for entry in self._entries:
                if entry.record.name == name:
                    self._drop(entry)
            self._entries = [e for e in self._entries if e.record.name != name]
            self._registry = None

    def pin(self, key: ContributionKey | str | tuple[str, str], *, dist: str) -> None:
        """Make ``dist`` (a distribution or plugin name) win ``key`` whatever the priorities: a
        key as ``AFFORDANCE_PIN`` writes it (``"openai"``, ``"serializer:openai.tool"``) or a
        codec's ``(provider, kind)``."""
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

    def load(self) -> None:
        """Import the entry-point plugins now (once per host; :meth:`registry` does it first). A
        ``KeyboardInterrupt`` leaves nothing loaded, so the next call loads again."""
        self._refuse_from_a_plugin_import()
        with self._lock:
            if self._autoloaded or not self.settings.autoload:
                return
            loaded: list[_Entry] = []
            self._importing = True
            try:
                for entry_point, record in select(discover(), self.settings):
                    wanted = record.status is PluginStatus.LOADED
                    loaded.append(self._import(entry_point, record) if wanted else _Entry(record))
            except BaseException:
                for entry in loaded:
                    self._drop(entry)
                raise
            finally:
                self._importing = False
            self._autoloaded = True
            self._entries[:0] = loaded  # entry points first, then the plugins registered in code

    def _refuse_from_a_plugin_import(self) -> None:
        """A plugin's import asking this host for its plugins while they are being imported
        would wait for the caller that waits for it: refuse at once, as from a hook."""
        if self._importing and on_import_thread():
            raise PluginError(
                "the plugin registry was asked for while it is being built (from a plugin's "
                "import?)"
            )

    def _import(self, entry_point: importlib.metadata.EntryPoint, record: PluginRecord) -> _Entry:
        """Import and register one entry point's plugin; a failure is recorded on its row."""
        try:
            plugin = import_within(entry_point, self.settings.import_timeout)
        except KeyboardInterrupt:
            raise
        except ImportTimeoutError as exc:
            reason = str(exc)
        except BaseException as exc:  # noqa: BLE001 - even sys.exit() at import is the plugin's
            reason = f"import failed: {describe(exc)}"
        else:
            problem = self._try_register(plugin, record.name)
            if problem is None:
                return _Entry(record, plugin)
            reason = f"registration failed: {problem}"
        return _Entry(replace(record, status=PluginStatus.FAILED, reason=reason))

    def records(self) -> tuple[PluginRecord, ...]:
        """The plugin table: entry-point plugins sorted by (name, distribution), then the ones
        registered in code. Loads plugins if needed; never raises for a broken plugin."""
        self._refuse_from_a_plugin_import()
        with self._lock:
            self._prepare()
            return tuple(entry.record for entry in self._entries)

    def registry(self) -> Registry:
        """The registry, built on first use and cached (thread-safe); in strict mode a failed,
        duplicate or incompatible plugin raises :class:`PluginLoadError` here."""
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
                    entry.collected = True
                    entry.record = collect(self._pm, entry.plugin, entry.record)
                    if entry.record.status is not PluginStatus.LOADED:
                        self._drop(entry)
        finally:
            self._building = False

    def _raise_first_problem(self) -> None:
        for entry in self._entries:
            record = entry.record
            if record.status in UNHEALTHY:
                raise PluginLoadError(
                    f"plugin {record.label} {record.status}: {record.reason} "
                    "(strict mode: AFFORDANCE_STRICT_PLUGINS or strict=True)",
                    plugin=record.name,
                    distribution=record.distribution,
                    status=record.status.value,
                )

    def _drop(self, entry: _Entry) -> None:
        """Take a plugin out of pluggy (if it is there): it contributes nothing from now on."""
        if entry.plugin is not None and self._pm.is_registered(entry.plugin):
            self._pm.unregister(entry.plugin)
        entry.plugin = None

    def _reject_unknown_hooks(self) -> None:
        """Fail every plugin implementing a hook nobody specified, as pluggy's ``check_pending``
        would refuse it (an ``optionalhook=True`` implementation is exempt)."""
        hooks = [getattr(self._pm.hook, name) for name in vars(self._pm.hook)]
        known = [hook.name for hook in hooks if hook.has_spec()]
        for entry in self._entries:
            unknown = [
                hook.name
                for hook in hooks
                if not hook.has_spec()
                and any(
                    i.plugin is entry.plugin and not i.optionalhook for i in hook.get_hookimpls()
                )
            ]
            if not unknown:  # a dropped plugin (None) implements nothing
                continue
            hints = [
                f"{name} (did you mean {close[0]}?)" if close else name
                for name in unknown
                for close in [difflib.get_close_matches(name, known, n=1)]
            ]
            reason = f"implements unknown hook(s): {', '.join(hints)}"
            entry.record = replace(entry.record, status=PluginStatus.FAILED, reason=reason)
            self._drop(entry)
