"""affordance-testing: the contracts a provider adapter, a hosted-tool codec and a plugin module
pass, the fault matrix they run, and a loopback HTTP server that injects faults.

- :class:`AdapterContract` (``affordance_testing.contract``): every behaviour of a provider
  adapter, the four ways of running it and the fault matrix (``affordance_testing.faults``);
- :class:`CodecContract`, :class:`PluginContract`: a hosted-tool codec, a plugin's entry module;
- ``affordance_testing.loopback``: a real HTTP server on 127.0.0.1 answering from a script in
  JSON, SSE or NDJSON, with faults injected by name (``affordance_testing.loopback.faults``);
- :class:`LogCapture`: what a run wrote to the logs, to check no content leaked there.

Names are imported on first access, so importing the package (as pytest does to load its
``loopback_server`` fixture) loads neither the contracts nor affordance's runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AdapterContract",
    "CodecContract",
    "ContractWire",
    "LogCapture",
    "MakeAdapter",
    "PluginContract",
]

_EXPORTS = {
    "AdapterContract": "affordance_testing.contract",
    "CodecContract": "affordance_testing.codec_contract",
    "ContractWire": "affordance_testing.contract_fixtures",
    "LogCapture": "affordance_testing.logs",
    "MakeAdapter": "affordance_testing.contract_fixtures",
    "PluginContract": "affordance_testing.plugin_contract",
}

if TYPE_CHECKING:
    from affordance_testing.codec_contract import CodecContract
    from affordance_testing.contract import AdapterContract
    from affordance_testing.contract_fixtures import ContractWire, MakeAdapter
    from affordance_testing.logs import LogCapture
    from affordance_testing.plugin_contract import PluginContract


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'affordance_testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
