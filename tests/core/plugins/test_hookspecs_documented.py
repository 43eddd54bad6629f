"""Every hook is documented in specs/PLUGINS.md and implemented by a shipped plugin or a sample
plugin (a hook nothing implements is a defect: an extension point without a user)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from affordance.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "specs" / "PLUGINS.md"
PLUGIN_SOURCES = [*ROOT.glob("plugins/*/src/**/*.py"), *ROOT.glob("tests/fixtures/plugins/**/*.py")]
HOOKS = sorted(
    name
    for name in vars(hookspecs)
    if name.startswith("affordance_") and hasattr(getattr(hookspecs, name), "affordance_spec")
)


def test_the_hooks_are_found():
    assert set(HOOKS) == {
        "affordance_register_codecs",
        "affordance_register_hosted_tool_kinds",
        "affordance_register_providers",
        "affordance_register_serializers",
    }


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_documented(hook):
    assert f"`{hook}`" in SPEC.read_text(encoding="utf-8")


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_implemented_by_a_plugin(hook):
    pattern = re.compile(rf"def {hook}\(")
    assert any(pattern.search(path.read_text(encoding="utf-8")) for path in PLUGIN_SOURCES)
