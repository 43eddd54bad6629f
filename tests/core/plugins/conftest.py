"""Fixtures for the plugin-system tests.

``fake_dists`` writes real ``.dist-info`` directories (METADATA, entry_points.txt) and modules
into a temporary directory on ``sys.path``, so discovery runs the real ``importlib.metadata``
parser; ``plugin_env`` clears every ``AFFORDANCE_*`` variable so the outer environment cannot
leak into a test; ``fresh_default_host`` isolates ``affordance.plugins``' default host.
"""

from __future__ import annotations

import importlib
import os
import sys
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

import affordance.plugins
from affordance.testing.pytest_plugin import no_network, plugin_host  # noqa: F401 - fixtures


class FakeDists:
    """Writes distributions and modules into one directory that is on ``sys.path``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def module(self, name: str, source: str = "") -> None:
        """A module (dotted names make packages) with ``source`` (dedented)."""
        *packages, leaf = name.split(".")
        directory = self.root
        for package in packages:
            directory = directory / package
            directory.mkdir(exist_ok=True)
            (directory / "__init__.py").touch()
        (directory / f"{leaf}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        importlib.invalidate_caches()

    def dist(
        self,
        name: str,
        version: str = "1.0",
        *,
        entry_points: Mapping[str, str] | None = None,
        requires: Sequence[str] = ("affordance>=0.1,<1",),
        modules: Mapping[str, str] | None = None,
    ) -> None:
        """A distribution ``name`` declaring ``entry_points`` in the affordance.plugins group."""
        info = self.root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
        metadata += [f"Requires-Dist: {line}" for line in requires]
        (info / "METADATA").write_text("\n".join(metadata) + "\n", encoding="utf-8")
        if entry_points:
            lines = ["[affordance.plugins]"] + [f"{k} = {v}" for k, v in entry_points.items()]
            (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for module_name, source in (modules or {}).items():
            self.module(module_name, source)
        importlib.invalidate_caches()

    def imported(self, module: str) -> bool:
        return module in sys.modules


@pytest.fixture(autouse=True)
def plugin_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith("AFFORDANCE_"):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture
def fake_dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDists]:
    root = tmp_path / "site-packages"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield FakeDists(root)
    for name in set(sys.modules) - before:
        location = getattr(sys.modules[name], "__file__", None) or ""
        if location.startswith(str(root)):
            del sys.modules[name]
    importlib.invalidate_caches()


@pytest.fixture
def fresh_default_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the test its own default host (the previous one is put back afterwards)."""
    monkeypatch.setattr(affordance.plugins, "_default_host", None)
