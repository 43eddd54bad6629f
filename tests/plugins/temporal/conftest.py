"""Shared pieces of the durable-run tests: a fresh task queue and ledger per test, and the test
deployment (``durable_app``) importable here and in worker subprocesses. The dev server is the
session's (``temporal_server`` in ``tests/conftest.py``)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # `import durable_app`, as the worker subprocesses do

from durable_app import Ledger  # noqa: E402


@pytest.fixture
def task_queue() -> str:
    return f"tests-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "ledger.db")
