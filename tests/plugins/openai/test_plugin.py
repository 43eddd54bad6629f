"""The plugin's entry point: it declares the provider by dotted path and imports no SDK; the
adapter (and ``openai``) load only when the provider is used."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from typing import Any

import pytest

from affordance.plugins import SERIALIZER_ROLES, PluginHost
from affordance.plugins.specs import ProviderSpec
from affordance_openai import OpenAIAdapter, plugin
from affordance_openai.serializers import (
    OpenAIOutputSerializer,
    OpenAIToolResultSerializer,
    OpenAIToolSerializer,
)
from affordance_testing.plugin_contract import PluginContract


def test_the_hook_declares_the_openai_provider_with_its_sdk_range() -> None:
    assert plugin.affordance_register_providers() == [
        ProviderSpec(
            name="openai",
            adapter="affordance_openai.adapter:OpenAIAdapter",
            sdk="openai>=1.66,<4",
            description=plugin.affordance_register_providers()[0].description,
            api_key_env=("OPENAI_API_KEY",),
        )
    ]


def test_the_plugin_registers_a_serializer_for_every_role_at_priority_zero() -> None:
    specs = plugin.affordance_register_serializers()

    assert sorted(spec.role for spec in specs) == sorted(SERIALIZER_ROLES)
    assert {(spec.provider, spec.priority) for spec in specs} == {("openai", 0)}
    host = PluginHost(autoload=False)
    host.register(plugin, name="openai")
    registry = host.registry()
    assert isinstance(registry.serializer("openai", "tool"), OpenAIToolSerializer)
    assert isinstance(registry.serializer("openai", "tool_result"), OpenAIToolResultSerializer)
    assert isinstance(registry.serializer("openai", "output"), OpenAIOutputSerializer)


class TestOpenAIPluginContract(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_openai.plugin"


def test_the_distribution_registers_its_entry_point() -> None:
    (entry,) = [
        ep
        for ep in importlib.metadata.entry_points(group="affordance.plugins")
        if ep.name == "openai"
    ]

    assert entry.value == "affordance_openai.plugin"
    assert entry.dist is not None
    assert entry.dist.name == "affordance-openai"


def test_a_plugin_host_builds_the_adapter_by_name(clients: Any) -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="openai")

    adapter = host.registry().load_adapter("openai", model="gpt-test", client=clients.sync())

    assert isinstance(adapter, OpenAIAdapter)
    assert adapter.model == "gpt-test"


def test_importing_the_package_and_its_entry_point_does_not_import_the_sdk() -> None:
    script = """
import json, sys
import affordance_openai, affordance_openai.plugin
from affordance.plugins import PluginHost
host = PluginHost(autoload=False)
host.register(affordance_openai.plugin, name="openai")
names = host.registry().provider_names()
before = "openai" in sys.modules
affordance_openai.OpenAIAdapter
print(json.dumps([before, "openai" in sys.modules, list(names)]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )

    assert json.loads(done.stdout) == [False, True, ["openai"]]
