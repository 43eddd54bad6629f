"""Offline adapters and helpers for testing code built on affordance.

The contract suites every provider adapter, hosted-tool codec and plugin module passes, the
fault matrix and the loopback fault server live in the ``affordance-testing`` distribution
(``affordance_testing``), which builds on these and is never imported by core.
"""

from affordance._lazy import lazy_exports

# public name -> the module defining it, imported on first access (PEP 562); __init__.pyi
# lists the same names for type checkers
_EXPORTS: dict[str, str] = {
    "FakeClock": "affordance.testing.clock",
    "NetworkBlockedError": "affordance.testing.network",
    "ScriptedAdapter": "affordance.testing.scripted",
    "ScriptedModel": "affordance.testing.scripted",
    "ToolSweepAdapter": "affordance.testing.sweep",
    "block_network": "affordance.testing.network",
    "comparable": "affordance.testing.compare",
    "comparable_calls": "affordance.testing.compare",
    "sample_from_schema": "affordance.testing.sweep",
    "text": "affordance.testing.scripted",
    "tool_call": "affordance.testing.scripted",
    "tool_calls": "affordance.testing.scripted",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
