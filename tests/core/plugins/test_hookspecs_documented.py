"""Every hook is documented in specs/PLUGINS.md and implemented by at least one test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from affordance.plugins import hookspecs

HERE = Path(__file__).resolve().parent
SPEC = HERE.parents[2] / "specs" / "PLUGINS.md"
HOOKS = sorted(
    name
    for name in vars(hookspecs)
    if name.startswith("affordance_") and hasattr(getattr(hookspecs, name), "affordance_spec")
)


def test_the_hooks_are_found():
    assert {"affordance_register_codecs", "affordance_resolve_conflict"} <= set(HOOKS)


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    assert f"`{hook}`" in SPEC.read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_implemented_by_a_test(hook):
    pattern = re.compile(rf"def {hook}\(")
    sources = [
        path.read_text(encoding="utf-8")
        for path in HERE.glob("test_*.py")
        if path.name != Path(__file__).name
    ]
    assert any(pattern.search(source) for source in sources)
