"""Collecting one plugin's specs, calling its hook implementations one by one: pluggy's hook call
stops at the first that raises; the host fails only that plugin (``specs/PLUGINS.md``, "Hooks")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pluggy

from affordance.plugins._contributions import Contribution, key_of
from affordance.plugins._records import PluginRecord, PluginStatus
from affordance.plugins.specs import (
    PLUGIN_API,
    CodecSpec,
    HostedToolKindSpec,
    ProviderSpec,
    SerializerSpec,
)

__all__ = ["COLLECT_HOOKS", "collect", "describe", "safe_repr"]

COLLECT_HOOKS: tuple[tuple[str, type[Any]], ...] = (
    ("affordance_register_providers", ProviderSpec),
    ("affordance_register_hosted_tool_kinds", HostedToolKindSpec),
    ("affordance_register_codecs", CodecSpec),
    ("affordance_register_serializers", SerializerSpec),
)


def describe(exc: BaseException) -> str:
    """``Type: message`` on one line, for a plugin's reason (``SystemExit: 3``)."""
    try:
        text = " ".join(str(exc).split())
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - a plugin's exception may break its own __str__
        text = ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def safe_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters; a plugin's object may break its own repr."""
    try:
        text = repr(value)
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - the value is named by its type instead
        text = f"<{type(value).__qualname__} object>"
    return text[:limit]


def collect(pm: pluggy.PluginManager, plugin: object, record: PluginRecord) -> PluginRecord:
    """``record`` with the hooks ``plugin`` implements and the specs they return, checked; or
    with why it contributes nothing: ``failed``, or ``incompatible`` when every spec declares
    another plugin API (such specs among others are dropped with a note)."""
    hooks = tuple(sorted(caller.name for caller in pm.get_hookcallers(plugin) or ()))
    record = replace(record, hooks=hooks)
    contributions: list[Contribution] = []
    notes: list[str] = []
    foreign_apis: set[int] = set()
    for hook_name, spec_type in COLLECT_HOOKS:
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            if impl.plugin is not plugin:
                continue
            if impl.wrapper or impl.hookwrapper:
                return _failed(record, f"{hook_name} must be a plain implementation, not a wrapper")
            try:
                result = impl.function()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - recorded as this plugin's failure
                return _failed(record, f"{hook_name} raised {describe(exc)}")
            if result is None:
                continue
            if not isinstance(result, (list, tuple)) or not all(
                isinstance(spec, spec_type) for spec in result
            ):
                return _failed(
                    record,
                    f"{hook_name} returned {safe_repr(result)}; expected a list of "
                    f"{spec_type.__name__}",
                )
            for spec in result:
                if spec.api != PLUGIN_API:
                    foreign_apis.add(spec.api)
                    notes.append(
                        f"{key_of(spec)} skipped: written for plugin API {spec.api}; "
                        f"this affordance speaks plugin API {PLUGIN_API}"
                    )
                    continue
                contribution = Contribution(spec, record.name, record.distribution, record.version)
                if any(c.key == contribution.key for c in contributions):
                    return _failed(record, f"contributes {contribution.key} twice")
                contributions.append(contribution)
    record = replace(record, notes=tuple(notes))
    if foreign_apis and not contributions:
        apis = ", ".join(str(api) for api in sorted(foreign_apis))
        return _failed(
            record,
            f"written for plugin API {apis}; this affordance speaks plugin API {PLUGIN_API} "
            "(upgrade the plugin or affordance)",
            PluginStatus.INCOMPATIBLE,
        )
    return replace(record, contributions=tuple(contributions))


def _failed(
    record: PluginRecord, reason: str, status: PluginStatus = PluginStatus.FAILED
) -> PluginRecord:
    return replace(record, status=status, reason=reason, contributions=())
