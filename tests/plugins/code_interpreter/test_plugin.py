"""The entry point: a thin module registering the ``code_interpreter`` kind and a codec for each
provider that has a code interpreter, by dotted path."""

from __future__ import annotations

import importlib.metadata

import pytest
from packaging.requirements import Requirement

import affordance.plugins
from affordance.plugins import PluginHost, PluginStatus
from affordance_code_interpreter import CodeInterpreterConfig, plugin
from affordance_code_interpreter.anthropic_messages import AnthropicCodeInterpreterCodec
from affordance_code_interpreter.google_gemini import GoogleCodeInterpreterCodec
from affordance_code_interpreter.openai_responses import OpenAICodeInterpreterCodec
from affordance_testing.plugin_contract import PluginContract
from affordance_testing.sdk_imports import modules_imported_by


class TestCodeInterpreterPlugin(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_code_interpreter.plugin"


def test_a_registry_resolves_a_codec_for_each_provider_but_openai_chat() -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="code-interpreter")
    registry = host.registry()

    assert type(registry.codec("openai", "code_interpreter")) is OpenAICodeInterpreterCodec
    assert type(registry.codec("anthropic", "code_interpreter")) is AnthropicCodeInterpreterCodec
    assert type(registry.codec("google", "code_interpreter")) is GoogleCodeInterpreterCodec
    assert registry.codec("openai-chat", "code_interpreter") is None
    registered = registry.hosted_tool_config("code_interpreter")
    assert registered is not None
    assert registered[0] is CodeInterpreterConfig


def test_the_installed_distribution_declares_the_entry_point_and_no_sdk() -> None:
    distribution = importlib.metadata.distribution("affordance-code-interpreter")
    (entry_point,) = [
        e for e in distribution.entry_points if e.group == affordance.plugins.ENTRY_POINT_GROUP
    ]

    assert (entry_point.name, entry_point.value) == (
        "code-interpreter",
        "affordance_code_interpreter.plugin",
    )
    assert [Requirement(r).name for r in distribution.requires or ()] == ["affordance"]


def test_the_default_registry_loads_it_from_its_entry_point() -> None:
    records = {r.name: r for r in affordance.plugins.default_host().records()}

    assert records["code-interpreter"].status is PluginStatus.LOADED


def test_discovering_the_plugin_imports_none_of_its_own_modules() -> None:
    watched = (
        "affordance_code_interpreter.config",
        "affordance_code_interpreter.section",
        "affordance_code_interpreter.openai_responses",
        "affordance.prompt.markdown",
    )

    assert modules_imported_by("affordance_code_interpreter.plugin", watched) == []
