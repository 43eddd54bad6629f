"""Importing affordance scans nothing and imports no provider SDK, even once plugins load."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

PROVIDER_SDKS = ("openai", "anthropic", "google.genai")

# Entry modules of the first-party plugins: importing them must not import an SDK either.
# Those installed in the environment are checked (the openai tox envs run this file too).
FIRST_PARTY_ENTRY_MODULES = ("affordance_openai.plugin", "affordance_openai")
PLUGIN_ENTRY_MODULES: tuple[str, ...] = tuple(
    m for m in FIRST_PARTY_ENTRY_MODULES if importlib.util.find_spec(m.split(".")[0]) is not None
)


def run_python(code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFORDANCE_")}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_loading_the_registry_imports_no_provider_sdk():
    code = f"""
import importlib, json, sys
import affordance
import affordance.plugins
for module in {PLUGIN_ENTRY_MODULES!r}:
    importlib.import_module(module)
registry = affordance.plugins.registry()
records = affordance.plugins.default_host().records()
print(json.dumps({{
    "sdks": [m for m in {PROVIDER_SDKS!r} if m in sys.modules],
    "failed": [r.name for r in records if r.status.value not in ("loaded", "blocked")],
}}))
"""
    found = run_python(code)
    assert found == {"sdks": [], "failed": []}


def test_importing_affordance_and_its_plugins_package_scans_no_entry_points_and_starts_no_thread():
    code = """
import importlib.metadata, json, sys, threading
def forbidden(*args, **kwargs):
    raise AssertionError("entry points scanned at import")
importlib.metadata.entry_points = forbidden
import affordance
import affordance.plugins
host = affordance.plugins.default_host()
print(json.dumps({"ok": True, "runtime": "affordance.runtime.loop" in sys.modules,
                  "threads": threading.active_count()}))
"""
    assert run_python(code) == {"ok": True, "runtime": False, "threads": 1}
