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
import re
import subprocess
import sys
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


CORE = ROOT / "core" / "src"
LAZY_FACADES = sorted(
    path.parent.relative_to(CORE).as_posix().replace("/", ".")
    for path in CORE.glob("affordance/**/__init__.pyi")
)
"""The packages whose ``__init__.py`` imports each name on first access (``_EXPORTS``) and
whose ``__init__.pyi`` lists the same names as plain imports, for type checkers."""


def _stub_of(package: str) -> tuple[dict[str, str], list[str]]:
    """``({name: module}, __all__)`` as ``package``'s ``__init__.pyi`` writes them."""
    tree = ast.parse((CORE / package.replace(".", "/") / "__init__.pyi").read_text("utf-8"))
    imported: dict[str, str] = {}
    public: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module != package:
            # (a package's own submodules, attributes once imported, are not in its table)
            imported.update((alias.asname or alias.name, node.module) for alias in node.names)
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            public = list(ast.literal_eval(node.value))
    return imported, public


def test_the_lazy_facades_are_found() -> None:
    assert {"affordance.adapters", "affordance.runtime", "affordance.testing"} <= set(LAZY_FACADES)


@pytest.mark.parametrize("package", LAZY_FACADES)
def test_a_lazy_facade_resolves_what_its_stub_lists(package: str) -> None:
    """The stub is what type checkers read, ``_EXPORTS`` what runs: the same names, each from
    the same module, and ``__all__`` the same list."""
    imported, public = _stub_of(package)
    module = importlib.import_module(package)
    assert imported == module._EXPORTS
    assert module.__all__ == public
    for name, source in imported.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name), name


EAGER_BELOW = {
    "affordance": {"_lazy", "_version"},  # the lazy attributes, and __version__
    # the events mark the types every session keeps when imported; events need the session
    "affordance.runtime.record": {"events", "log_context", "session"},
    # `tool`, the decorator, is bound at import: `affordance.tools.tool` is a module's name too
    "affordance.tools": {"_handler", "_naming", "decorator", "result", "retry", "tool"},
}
"""The modules a lazy facade does load, each for a reason its ``__init__.py`` gives."""


@pytest.mark.parametrize("package", LAZY_FACADES)
def test_importing_a_lazy_facade_loads_nothing_below_it(package: str) -> None:
    code = f"import sys, {package}\nprint('\\n'.join(sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    below = {m.removeprefix(package + ".") for m in loaded if m.startswith(package + ".")}
    assert below == EAGER_BELOW.get(package, set())


def _layers() -> list[set[str]]:
    """The core's layers, top first, as the layers contract of ``pyproject.toml`` lists them
    (read with a pattern: ``tomllib`` is not in Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    for block in re.findall(r"^layers = \[\n(.*?)^\]", text, flags=re.M | re.S):
        layers = re.findall(r'^\s*"([^"]+)",', block, flags=re.M)
        if "affordance.cli" in layers:
            return [{part.strip() for part in layer.split("|")} for layer in layers]
    raise AssertionError("no layers contract for the core")


SEEDS_REEXPORT = {("affordance.prompt", "ToolContext"), ("affordance.prompt", "ToolHandler")}
"""The seeds take the runtime's ``ToolContext`` from ``affordance.prompt``, a layer below it."""


@pytest.mark.parametrize("package", LAZY_FACADES)
def test_a_lazy_facades_table_points_down_the_layers(package: str) -> None:
    """lint-imports cannot see a name the table resolves: this holds the table to the layers
    (``affordance`` itself, the front door, is above them all)."""
    layers = _layers()

    def rank(module: str) -> int:
        for depth in range(module.count(".") + 1, 0, -1):
            prefix = ".".join(module.split(".")[:depth])
            for index, layer in enumerate(layers):
                if prefix in layer:
                    return index
        raise AssertionError(f"{module} is in no layer")

    table = importlib.import_module(package)._EXPORTS
    upward = sorted(
        f"{name} from {module}"
        for name, module in table.items()
        if package != "affordance"
        and rank(module) < rank(package)
        and (package, name) not in SEEDS_REEXPORT
    )
    assert not upward, f"{package} resolves names from a layer above it: {upward}"
