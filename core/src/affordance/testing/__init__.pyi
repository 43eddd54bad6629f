# The names of __init__.py, imported eagerly here for type checkers (the package imports
# each on first access); tests/core/test_facades.py holds the two to agree.

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
