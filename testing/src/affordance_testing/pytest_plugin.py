"""affordance-testing's pytest plugin, loaded through its ``pytest11`` entry point wherever the
distribution is installed (``-p no:affordance_testing`` leaves it out).

It adds one fixture, ``loopback_server``: a started :class:`~affordance_testing.loopback.
LoopbackServer`, stopped (every thread joined, every socket closed) when the test ends. The
contract suites need no plugin: they are classes a test module subclasses.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from affordance_testing.loopback import LoopbackServer

__all__ = ["loopback_server"]


@pytest.fixture
def loopback_server() -> Iterator[LoopbackServer]:
    """A loopback server on an ephemeral 127.0.0.1 port for this test; script it, point a
    client at its ``base_url``, read its ``requests``."""
    with LoopbackServer() as server:
        yield server
