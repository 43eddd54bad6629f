"""Shared pieces of the durable-run tests: a fresh task queue and ledger per test. The test
deployment (``durable_app``) is in ``tests/fixtures``, on the path here, in the other test
directories that run durable runs and in worker subprocesses. The dev server is the session's
(``temporal_server`` in ``tests/conftest.py``)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from durable_app import Ledger


@pytest.fixture
def task_queue() -> str:
    return f"tests-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "ledger.db")
