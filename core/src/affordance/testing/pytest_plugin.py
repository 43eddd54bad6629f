"""Fixtures for the tests of packages that extend affordance (opt-in pytest plugin).

Enable it in your test suite's ``conftest.py``::

    pytest_plugins = ["affordance.testing.pytest_plugin"]

It is deliberately not registered under ``pytest11``, so it never loads into the test runs of
people who merely have affordance installed. It provides:

- ``plugin_host``: a fresh ``PluginHost(autoload=False)``; register your plugin module on it;
- ``no_network``: any non-loopback connection fails inside the test.

The contract suites a plugin runs — ``AdapterContract``, ``CodecContract``, ``PluginContract``,
the fault matrix — and the loopback fault server are a distribution of their own,
``affordance-testing`` (``affordance_testing``), which core never imports.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from affordance.plugins import PluginHost
from affordance.testing.network import block_network

__all__ = ["no_network", "plugin_host"]


@pytest.fixture
def plugin_host() -> PluginHost:
    """A host that scans no entry points: only what the test registers counts."""
    return PluginHost(autoload=False)


@pytest.fixture
def no_network() -> Iterator[None]:
    """Make any connection to a non-loopback address fail for the duration of the test."""
    with block_network():
        yield
