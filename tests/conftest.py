"""Every test runs with the network blocked: only loopback connections are allowed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from affordance.testing.network import block_network


@pytest.fixture(autouse=True)
def _no_network() -> Iterator[None]:
    with block_network():
        yield
