"""The import surface for plugin authors: core's facades, and the shipped plugins held to them.

A plugin imports core only through a facade — ``affordance`` or one of its public packages and
modules — never a module below them nor a private one (``lint-imports`` holds that: the
``protected`` and ``private_modules`` contracts of ``pyproject.toml``). These tests hold the
facades to their word: each name of a facade's ``__all__`` is there, and each name a shipped
plugin takes from core is one a facade's ``__all__`` promises, so what the plugins need is
what the docs can list.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FACADES = (
    "affordance",
    "affordance.adapters",
    "affordance.attachments",
    "affordance.cli",
    "affordance.clock",
    "affordance.errors",
    "affordance.plugins",
    "affordance.prompt",
    "affordance.runtime",
    "affordance.serde",
    "affordance.testing",
    "affordance.tools",
    "affordance.transcript",
)


PLUGIN_CODE = (
    "plugins/*/src/**/*.py",
    "testing/src/**/*.py",
    "tests/fixtures/walkthroughs/**/*.py",
)
"""Code held to the facades: the shipped plugins, affordance-testing, the walkthroughs' plugins."""


def core_imports_of_the_plugins() -> list[tuple[str, str, str]]:
    """``(file, module, name)`` for each ``from affordance... import name`` of the code of
    :data:`PLUGIN_CODE`."""
    found = []
    for path in sorted(p for pattern in PLUGIN_CODE for p in ROOT.glob(pattern)):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            if node.module == "affordance" or node.module.startswith("affordance."):
                relative = path.relative_to(ROOT).as_posix()
                found.extend((relative, node.module, alias.name) for alias in node.names)
    return found


@pytest.mark.parametrize("facade", FACADES)
def test_every_name_a_facade_promises_is_there(facade: str) -> None:
    module = importlib.import_module(facade)
    public = list(module.__all__)
    assert len(public) == len(set(public)), f"{facade}.__all__ repeats a name"
    missing = [name for name in public if not hasattr(module, name)]
    assert not missing, f"{facade}.__all__ names what it does not have: {missing}"


def test_the_shipped_plugins_import_core_only_through_the_facades() -> None:
    imports = core_imports_of_the_plugins()
    assert len(imports) > 100  # the scan found the plugins' imports
    deep = sorted({f"{file}: {module}" for file, module, _ in imports if module not in FACADES})
    assert not deep, "plugins import core below its facades:\n" + "\n".join(deep)


def test_each_name_a_plugin_takes_from_core_is_in_a_facades_all() -> None:
    """Not merely present in the facade's namespace (a module it happens to import): listed."""
    unlisted = sorted(
        f"{file}: {name} from {module}"
        for file, module, name in core_imports_of_the_plugins()
        if module in FACADES and name not in importlib.import_module(module).__all__
    )
    assert not unlisted, "names the facades do not list:\n" + "\n".join(unlisted)
