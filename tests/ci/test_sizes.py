"""The sizes the design keeps (``specs/DEVELOPMENT.md``, "Sizes"), counted as ``wc -l`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_PLUGINS = ("openai", "anthropic", "google")


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n")


def _modules(*roots: Path) -> list[Path]:
    return sorted(module for root in roots for module in root.rglob("*.py"))


def test_no_module_of_core_plugins_or_the_testing_kit_is_over_400_lines() -> None:
    sources = [ROOT / "core" / "src", ROOT / "testing" / "src", *(ROOT / "plugins").glob("*/src")]
    modules = _modules(*sources)
    assert len(modules) > 100  # the sources were found
    over = {str(m.relative_to(ROOT)): _lines(m) for m in modules if _lines(m) > 400}
    assert over == {}


@pytest.mark.parametrize("plugin", PROVIDER_PLUGINS)
def test_a_provider_plugin_holds_at_most_900_lines(plugin: str) -> None:
    modules = _modules(ROOT / "plugins" / plugin / "src")
    assert modules, f"no sources for plugin {plugin}"
    assert sum(_lines(module) for module in modules) <= 900


def test_the_plugin_system_holds_at_most_1900_lines() -> None:
    modules = _modules(ROOT / "core" / "src" / "affordance" / "plugins")
    assert modules
    assert sum(_lines(module) for module in modules) <= 1900
