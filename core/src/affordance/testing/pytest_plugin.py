"""Fixtures and contract suites for packages that extend affordance (opt-in pytest plugin).

Enable it in your test suite's ``conftest.py``::

    pytest_plugins = ["affordance.testing.pytest_plugin"]

It is deliberately not registered under ``pytest11``, so it never loads into the test runs of
people who merely have affordance installed. It provides:

- ``plugin_host``: a fresh ``PluginHost(autoload=False)``; register your plugin module on it;
- ``no_network``: any non-loopback connection fails inside the test;
- :class:`CodecContract`: subclass it (as ``TestMyCodec``) and define the ``codec``,
  ``hosted_tool`` and ``sample_response_items`` fixtures to run the codec checks (the output
  must be of the type the tool's kind is registered with);
- :class:`PluginContract`: define the ``plugin_module`` fixture to check your entry-point
  module registers cleanly and imports no provider SDK.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import pytest

from affordance import plugins
from affordance.plugins import PluginHost, PluginStatus
from affordance.testing.network import block_network
from affordance.tools.hosted import HostedTool, HostedToolCodec

__all__ = ["PROVIDER_SDK_MODULES", "CodecContract", "PluginContract", "no_network", "plugin_host"]

PROVIDER_SDK_MODULES: tuple[str, ...] = ("openai", "anthropic", "google.genai")
"""Modules a plugin's entry module and its codecs must not import (they cost 1-2 s each)."""


@pytest.fixture
def plugin_host() -> PluginHost:
    """A host that scans no entry points: only what the test registers counts."""
    return PluginHost(autoload=False)


@pytest.fixture
def no_network() -> Iterator[None]:
    """Make any connection to a non-loopback address fail for the duration of the test."""
    with block_network():
        yield


def modules_imported_by(module: str, watched: Sequence[str] = PROVIDER_SDK_MODULES) -> list[str]:
    """Which of ``watched`` a fresh interpreter has in ``sys.modules`` after importing
    ``module`` (run in a subprocess so this process's imports do not count)."""
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        f"print(json.dumps([m for m in {list(watched)!r} if m in sys.modules]))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    if completed.returncode != 0:
        pytest.fail(f"importing {module} failed in a fresh interpreter:\n{completed.stderr}")
    imported: list[str] = json.loads(completed.stdout.strip().splitlines()[-1])
    return imported


def _dotted(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _abstract(cls: type, name: str) -> Any:
    pytest.fail(f"{cls.__name__} must define the {name!r} fixture (see CodecContract)")


class CodecContract:
    """The checks every hosted-tool codec must pass. Subclass as ``Test...`` and define:

    - ``codec``: the codec instance under test;
    - ``hosted_tool``: a ``HostedTool`` of the codec's kind;
    - ``sample_response_items``: provider response items (JSON-like dicts) in which the tool
      was invoked, so ``parse_output`` returns an output.

    Optionally override ``unrelated_response_items`` (items in which it was not invoked),
    ``output_type`` (the type ``parse_output`` must return; by default the one the installed
    plugins register for the tool's kind, as core checks it at run time) and ``sdk_modules``
    (modules the codec's module must not import).
    """

    sdk_modules: ClassVar[tuple[str, ...]] = PROVIDER_SDK_MODULES

    @pytest.fixture
    def codec(self) -> HostedToolCodec[Any, Any]:
        return _abstract(type(self), "codec")  # type: ignore[no-any-return]

    @pytest.fixture
    def hosted_tool(self) -> HostedTool[Any]:
        return _abstract(type(self), "hosted_tool")  # type: ignore[no-any-return]

    @pytest.fixture
    def sample_response_items(self) -> Sequence[Mapping[str, Any]]:
        return _abstract(type(self), "sample_response_items")  # type: ignore[no-any-return]

    @pytest.fixture
    def unrelated_response_items(self) -> Sequence[Mapping[str, Any]]:
        return [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
            }
        ]

    @pytest.fixture
    def output_type(self, hosted_tool: HostedTool[Any]) -> type[Any]:
        registered = plugins.registry().hosted_tool_output(hosted_tool.kind)
        if registered is None:
            pytest.fail(
                f"no installed plugin registers hosted tool kind {hosted_tool.kind!r}, so the "
                "type parse_output must return is unknown: install the plugin registering the "
                "kind, or define the 'output_type' fixture (see CodecContract)"
            )
        return registered[0]

    def test_kind_matches_the_hosted_tool(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        assert codec.kind == hosted_tool.kind

    def test_serialize_returns_a_json_serializable_dict(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        payload = codec.serialize(hosted_tool)
        assert isinstance(payload, dict)
        assert json.loads(json.dumps(payload)) == payload

    def test_serialize_is_deterministic(
        self, codec: HostedToolCodec[Any, Any], hosted_tool: HostedTool[Any]
    ) -> None:
        assert codec.serialize(hosted_tool) == codec.serialize(hosted_tool)

    def test_parse_output_is_none_when_the_tool_was_not_invoked(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        unrelated_response_items: Sequence[Mapping[str, Any]],
    ) -> None:
        assert codec.parse_output([], hosted_tool) is None
        assert codec.parse_output(unrelated_response_items, hosted_tool) is None

    def test_parse_output_reads_the_sample(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        sample_response_items: Sequence[Mapping[str, Any]],
    ) -> None:
        assert codec.parse_output(sample_response_items, hosted_tool) is not None

    def test_parse_output_returns_the_registered_output_type(
        self,
        codec: HostedToolCodec[Any, Any],
        hosted_tool: HostedTool[Any],
        sample_response_items: Sequence[Mapping[str, Any]],
        output_type: type[Any],
    ) -> None:
        output = codec.parse_output(sample_response_items, hosted_tool)
        if not isinstance(output, output_type):
            pytest.fail(
                f"{type(codec).__qualname__}.parse_output returned {_dotted(type(output))} for "
                f"the sample; kind {hosted_tool.kind!r} is registered with output "
                f"{_dotted(output_type)}, and core drops any other output with a warning"
            )

    def test_codec_module_imports_no_provider_sdk(self, codec: HostedToolCodec[Any, Any]) -> None:
        assert modules_imported_by(type(codec).__module__, self.sdk_modules) == []


class PluginContract:
    """Checks for a plugin's entry-point module. Subclass as ``Test...`` and define the
    ``plugin_module`` fixture returning the module's dotted name (the entry point's value)."""

    sdk_modules: ClassVar[tuple[str, ...]] = PROVIDER_SDK_MODULES

    @pytest.fixture
    def plugin_module(self) -> str:
        return _abstract(type(self), "plugin_module")  # type: ignore[no-any-return]

    def test_plugin_registers_and_contributes(self, plugin_module: str) -> None:
        host = PluginHost(autoload=False)
        host.register(importlib.import_module(plugin_module), name="under-test")
        host.registry()
        (record,) = host.records()
        assert record.status is PluginStatus.LOADED, record.reason
        assert record.contributions, "the plugin contributes nothing"
        assert not record.notes, record.notes

    def test_plugin_module_imports_no_provider_sdk(self, plugin_module: str) -> None:
        assert modules_imported_by(plugin_module, self.sdk_modules) == []
