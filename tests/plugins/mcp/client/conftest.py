"""Fixtures of the ``affordance_mcp`` client tests.

The tests import their helpers (``mcp_client_support``) from this directory. Servers a test
does not kill are shared: one toolbox server for the whole directory (sections with different
options share its connection), one hostile server. Tests that kill, restart or close a server
start their own. The process checks read ``/proc``, so the directory runs on Linux only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from mcp_client_support import (  # noqa: E402 - importable once HERE is on the path
    CONNECT_TIMEOUT,
    HOSTILE,
    WAIT,
    HTTPServer,
    toolbox_connection,
    within,
)

from affordance_mcp import MCPConnection  # noqa: E402

if not sys.platform.startswith("linux"):
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def toolbox() -> Iterator[MCPConnection]:
    """One toolbox server over stdio, connected, shared by every test that leaves it running."""
    connection = toolbox_connection("--tag", "shared-toolbox")
    within(WAIT, connection.connect)
    yield connection
    within(WAIT, connection.close)


@pytest.fixture(scope="session")
def hostile() -> Iterator[MCPConnection]:
    """The low-level server listing an invalid inputSchema and a lying outputSchema."""
    connection = MCPConnection.stdio(
        sys.executable, (str(HOSTILE),), label="hostile", connect_timeout=CONNECT_TIMEOUT
    )
    yield connection
    within(WAIT, connection.close)


@pytest.fixture
def http_server() -> Iterator[HTTPServer]:
    """A toolbox server on Streamable HTTP on a free loopback port, killed at the end."""
    server = HTTPServer()
    server.start()
    yield server
    server.kill()
