"""Tests that `affordance.serde` stays cheap to import and self-contained."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import affordance.serde

SRC = Path(affordance.serde.__file__).resolve().parents[2]


@functools.cache
def modules_after_import(statement: str) -> frozenset[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    return frozenset(completed.stdout.split())


def test_importing_serde_does_not_import_pydantic() -> None:
    modules = modules_after_import("import affordance.serde")
    assert "affordance.serde" in modules
    assert not any(name == "pydantic" or name.startswith("pydantic.") for name in modules)


def test_serde_imports_nothing_else_from_affordance() -> None:
    modules = modules_after_import("import affordance.serde")
    ours = {name for name in modules if name.startswith("affordance")}
    # the package, and the leaves below every layer that import only the standard library
    facade = {"affordance", "affordance._version", "affordance._lazy", "affordance._frozen"}
    assert all(name in facade or name.startswith("affordance.serde") for name in ours)


def test_public_api_is_explicit() -> None:
    assert sorted(affordance.serde.__all__) == [
        "FieldError",
        "JSONSchemaType",
        "MAX_DEPTH",
        "ParseError",
        "Validator",
        "dump",
        "parse",
        "schema",
    ]
