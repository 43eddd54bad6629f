"""The entry point: a thin module registering the ``web_search`` kind and a codec for each
provider by dotted path, found through the installed distribution's metadata."""

from __future__ import annotations

import importlib.metadata

import pytest
from packaging.requirements import Requirement

import affordance.plugins
from affordance.plugins import PluginHost, PluginStatus
from affordance.plugins.specs import HostedToolKindSpec
from affordance_testing.plugin_contract import PluginContract
from affordance_testing.sdk_imports import modules_imported_by
from affordance_web_search import WebSearchConfig, plugin
from affordance_web_search.anthropic_messages import AnthropicWebSearchCodec
from affordance_web_search.google_gemini import GoogleWebSearchCodec
from affordance_web_search.openai_chat import OpenAIChatWebSearchCodec
from affordance_web_search.openai_responses import OpenAIWebSearchCodec

EXPECTED = {
    "openai": OpenAIWebSearchCodec,
    "openai-chat": OpenAIChatWebSearchCodec,
    "anthropic": AnthropicWebSearchCodec,
    "google": GoogleWebSearchCodec,
}


class TestWebSearchPlugin(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_web_search.plugin"


def test_the_kind_names_its_config_and_output_types() -> None:
    assert plugin.affordance_register_hosted_tool_kinds() == [
        HostedToolKindSpec(
            kind="web_search",
            config="affordance_web_search.config:WebSearchConfig",
            output="affordance_web_search.result:WebSearchResult",
            description="Provider-run web search with citations",
        )
    ]


def test_a_registry_resolves_a_codec_for_every_provider() -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="web-search")
    registry = host.registry()

    for provider, codec_type in EXPECTED.items():
        assert type(registry.codec(provider, "web_search")) is codec_type
    assert sorted(registry.providers_supporting("web_search")) == sorted(EXPECTED)
    registered = registry.hosted_tool_config("web_search")
    assert registered is not None
    assert registered[0] is WebSearchConfig


def test_the_installed_distribution_declares_the_entry_point_and_no_sdk() -> None:
    distribution = importlib.metadata.distribution("affordance-web-search")
    (entry_point,) = [
        e for e in distribution.entry_points if e.group == affordance.plugins.ENTRY_POINT_GROUP
    ]

    assert (entry_point.name, entry_point.value) == ("web-search", "affordance_web_search.plugin")
    assert [Requirement(r).name for r in distribution.requires or ()] == ["affordance"]


def test_the_default_registry_loads_it_from_its_entry_point() -> None:
    records = {r.name: r for r in affordance.plugins.default_host().records()}

    assert records["web-search"].status is PluginStatus.LOADED
    assert records["web-search"].distribution == "affordance-web-search"


def test_discovering_the_plugin_imports_none_of_its_own_modules() -> None:
    watched = (
        "affordance_web_search.config",
        "affordance_web_search.section",
        "affordance_web_search.openai_responses",
        "affordance.prompt.markdown",
        "zoneinfo",
    )

    assert modules_imported_by("affordance_web_search.plugin", watched) == []
