"""Which provider SDKs a module imports, seen from a fresh interpreter.

A plugin's entry-point module and its codecs are imported when plugins are discovered; an SDK
imported there costs every user 1-2 s at start-up. :func:`modules_imported_by` asks a new
Python process, so what this process has already imported does not count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence

import pytest

__all__ = ["PROVIDER_SDK_MODULES", "modules_imported_by"]

PROVIDER_SDK_MODULES: tuple[str, ...] = ("openai", "anthropic", "google.genai")
"""Modules a plugin's entry module and its codecs must not import (they cost 1-2 s each)."""


def modules_imported_by(module: str, watched: Sequence[str] = PROVIDER_SDK_MODULES) -> list[str]:
    """Which of ``watched`` a fresh interpreter has in ``sys.modules`` after importing
    ``module`` (run in a subprocess so this process's imports do not count)."""
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        f"print(json.dumps([m for m in {list(watched)!r} if m in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    if completed.returncode != 0:
        pytest.fail(f"importing {module} failed in a fresh interpreter:\n{completed.stderr}")
    imported: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return imported
