"""Offline adapters and helpers for testing code built on affordance.

The contract suites every provider adapter, hosted-tool codec and plugin module passes, the
fault matrix and the loopback fault server live in the ``affordance-testing`` distribution
(``affordance_testing``), which builds on these and is never imported by core.
"""

from affordance.testing.clock import FakeClock
from affordance.testing.compare import comparable, comparable_calls
from affordance.testing.network import NetworkBlockedError, block_network
from affordance.testing.scripted import ScriptedAdapter, ScriptedModel, text, tool_call, tool_calls
from affordance.testing.sweep import ToolSweepAdapter, sample_from_schema

__all__ = [
    "FakeClock",
    "NetworkBlockedError",
    "ScriptedAdapter",
    "ScriptedModel",
    "ToolSweepAdapter",
    "block_network",
    "comparable",
    "comparable_calls",
    "sample_from_schema",
    "text",
    "tool_call",
    "tool_calls",
]
