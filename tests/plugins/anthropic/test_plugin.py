"""The plugin's entry point: it declares the provider and a serializer for every role by dotted
path and imports no SDK; the adapter (and ``anthropic``) load only when the provider is used. A
third party's serializer that outranks the plugin's changes the request the adapter sends."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from loopback import message_text, message_tool_uses

from affordance.plugins import SERIALIZER_ROLES, PluginHost
from affordance.plugins.hookspecs import hookimpl
from affordance.plugins.specs import ProviderSpec, SerializerSpec
from affordance_anthropic import AnthropicAdapter, plugin
from affordance_anthropic.serializers import (
    AnthropicOutputSerializer,
    AnthropicToolResultSerializer,
    AnthropicToolSerializer,
)
from affordance_testing.plugin_contract import PluginContract


def test_the_hook_declares_the_anthropic_provider_with_its_sdk_range_and_key() -> None:
    assert plugin.affordance_register_providers() == [
        ProviderSpec(
            name="anthropic",
            adapter="affordance_anthropic.adapter:AnthropicAdapter",
            sdk="anthropic>=2,<3",
            description=plugin.affordance_register_providers()[0].description,
            api_key_env=("ANTHROPIC_API_KEY",),
        )
    ]


def test_the_plugin_registers_a_serializer_for_every_role_at_priority_zero() -> None:
    specs = plugin.affordance_register_serializers()

    assert sorted(spec.role for spec in specs) == sorted(SERIALIZER_ROLES)
    assert {(spec.provider, spec.priority) for spec in specs} == {("anthropic", 0)}
    host = PluginHost(autoload=False)
    host.register(plugin, name="anthropic")
    registry = host.registry()
    assert isinstance(registry.serializer("anthropic", "tool"), AnthropicToolSerializer)
    assert isinstance(
        registry.serializer("anthropic", "tool_result"), AnthropicToolResultSerializer
    )
    assert isinstance(registry.serializer("anthropic", "output"), AnthropicOutputSerializer)


class TestAnthropicPluginContract(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_anthropic.plugin"


def test_the_distribution_registers_its_entry_point() -> None:
    (entry,) = [
        ep
        for ep in importlib.metadata.entry_points(group="affordance.plugins")
        if ep.name == "anthropic"
    ]

    assert entry.value == "affordance_anthropic.plugin"
    assert entry.dist is not None
    assert entry.dist.name == "affordance-anthropic"


def test_a_plugin_host_builds_the_adapter_by_name(loopback: Any) -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="anthropic")

    adapter = host.registry().load_adapter(
        "anthropic", model="claude-test", client=loopback.sync(), max_tokens=512
    )

    assert isinstance(adapter, AnthropicAdapter)
    assert (adapter.model, adapter.max_tokens) == ("claude-test", 512)


def test_importing_the_package_and_its_entry_point_does_not_import_the_sdk() -> None:
    script = """
import json, sys
import affordance_anthropic, affordance_anthropic.plugin
from affordance.plugins import PluginHost
host = PluginHost(autoload=False)
host.register(affordance_anthropic.plugin, name="anthropic")
names = host.registry().provider_names()
before = "anthropic" in sys.modules
affordance_anthropic.AnthropicAdapter
print(json.dumps([before, "anthropic" in sys.modules, list(names)]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )

    assert json.loads(done.stdout) == [False, True, ["anthropic"]]


THIRD_PARTY = '''
class PlainTools:
    """Non-strict declarations, the description prefixed: visibly not the plugin's."""

    def declare(self, tool):
        from affordance.runtime.model.serializers import ToolDeclaration

        schema = tool.parameters_schema()
        return ToolDeclaration(
            {"name": tool.name, "description": "[acme] " + tool.description, "input_schema": schema}
        )


class TextResults:
    def serialize(self, message):
        return {"type": "tool_result", "tool_use_id": message.call_id, "content": [
            {"type": "text", "text": ("FAILED " if message.is_error else "") + message.content}
        ]}


class InstructedOutput:
    def output_format(self, schema, name):
        from affordance.runtime.model.serializers import OutputFormat

        return OutputFormat({"system": "Answer in JSON, please."})
'''


class AcmeSerializers:
    """A third-party plugin replacing every role of the anthropic provider."""

    @hookimpl
    def affordance_register_serializers(self) -> list[SerializerSpec]:
        return [
            SerializerSpec("anthropic", "tool", "acme_anthropic:PlainTools", priority=1),
            SerializerSpec("anthropic", "tool_result", "acme_anthropic:TextResults", priority=1),
            SerializerSpec("anthropic", "output", "acme_anthropic:InstructedOutput", priority=1),
        ]


def test_a_third_party_serializer_that_outranks_the_plugin_changes_the_wire_request(
    loopback: Any,
    make_prompt: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "acme_anthropic.py").write_text(textwrap.dedent(THIRD_PARTY))
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(autoload=False)
    host.register(plugin, name="anthropic")
    host.register(AcmeSerializers(), name="acme")
    loopback.script(
        "evaluate",
        message_tool_uses([("toolu_1", "flaky", {"city": "Oslo"})]),
        message_text('{"city": "Oslo"}'),
    )
    adapter = AnthropicAdapter("claude-test", client=loopback.sync(), registry=host.registry())

    adapter.evaluate(make_prompt(output_type=Place))

    first, second = loopback.bodies()
    assert first["tools"][0]["description"] == "[acme] Current weather for a city."
    assert "strict" not in first["tools"][0]
    assert "output_config" not in first
    assert first["messages"][0]["role"] == "user"
    assert first["system"] == "Answer in JSON, please."
    assert second["messages"][-1]["content"][0]["content"][0]["text"].startswith("FAILED ")


@dataclass(frozen=True)
class Place:
    city: str
