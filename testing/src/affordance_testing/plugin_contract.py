"""``PluginContract``: the checks for a plugin's entry-point module — it registers cleanly on a
host of its own, contributes something, and imports no provider SDK (discovery stays cheap).

Subclass it as ``Test...`` and define the ``plugin_module`` fixture: the module's dotted name,
the value of the plugin's ``affordance.plugins`` entry point.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import pytest

from affordance.plugins import PluginHost, PluginStatus
from affordance_testing.sdk_imports import PROVIDER_SDK_MODULES, modules_imported_by

__all__ = ["PluginContract"]


def _abstract(cls: type, name: str) -> Any:
    pytest.fail(f"{cls.__name__} must define the {name!r} fixture (see PluginContract)")


class PluginContract:
    """Checks for a plugin's entry-point module. Subclass as ``Test...`` and define the
    ``plugin_module`` fixture returning the module's dotted name (the entry point's value)."""

    sdk_modules: ClassVar[tuple[str, ...]] = PROVIDER_SDK_MODULES

    @pytest.fixture
    def plugin_module(self) -> str:
        return _abstract(type(self), "plugin_module")  # type: ignore[no-any-return]

    def test_plugin_registers_and_contributes(self, plugin_module: str) -> None:
        host = PluginHost(autoload=False)
        host.register(importlib.import_module(plugin_module), name="under-test")
        host.registry()
        (record,) = host.records()
        assert record.status is PluginStatus.LOADED, record.reason
        assert record.contributions, "the plugin contributes nothing"
        assert not record.notes, record.notes

    def test_plugin_module_imports_no_provider_sdk(self, plugin_module: str) -> None:
        assert modules_imported_by(plugin_module, self.sdk_modules) == []
