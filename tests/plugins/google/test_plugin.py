"""The plugin's entry point: it declares the provider by dotted path and imports no SDK; the
adapter (and ``google.genai``) load only when the provider is used; ``affordance doctor``
reports the SDK against its range and whether a key variable is set."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from google import genai
from loopback import LoopbackServer

from affordance.plugins import SERIALIZER_ROLES, PluginHost
from affordance.plugins.specs import ProviderSpec
from affordance_google import GoogleAdapter, plugin
from affordance_google.serializers import (
    GoogleOutputSerializer,
    GoogleToolResultSerializer,
    GoogleToolSerializer,
)
from affordance_testing.plugin_contract import PluginContract


def test_the_hook_declares_the_google_provider_with_its_sdk_range_and_key_variables() -> None:
    assert plugin.affordance_register_providers() == [
        ProviderSpec(
            name="google",
            adapter="affordance_google.adapter:GoogleAdapter",
            sdk="google-genai>=1.39,<4",
            description=plugin.affordance_register_providers()[0].description,
            api_key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        )
    ]


def test_the_plugin_registers_a_serializer_for_every_role_at_priority_zero() -> None:
    specs = plugin.affordance_register_serializers()

    assert sorted(spec.role for spec in specs) == sorted(SERIALIZER_ROLES)
    assert {(spec.provider, spec.priority) for spec in specs} == {("google", 0)}
    host = PluginHost(autoload=False)
    host.register(plugin, name="google")
    registry = host.registry()
    assert isinstance(registry.serializer("google", "tool"), GoogleToolSerializer)
    assert isinstance(registry.serializer("google", "tool_result"), GoogleToolResultSerializer)
    assert isinstance(registry.serializer("google", "output"), GoogleOutputSerializer)


class TestGooglePluginContract(PluginContract):
    @pytest.fixture
    def plugin_module(self) -> str:
        return "affordance_google.plugin"


def test_the_distribution_registers_its_entry_point() -> None:
    (entry,) = [
        ep
        for ep in importlib.metadata.entry_points(group="affordance.plugins")
        if ep.name == "google"
    ]

    assert entry.value == "affordance_google.plugin"
    assert entry.dist is not None
    assert entry.dist.name == "affordance-google"


def test_a_plugin_host_builds_the_adapter_by_name(
    server: LoopbackServer, new_client: Callable[..., genai.Client]
) -> None:
    host = PluginHost(autoload=False)
    host.register(plugin, name="google")
    client = new_client(server)

    adapter = host.registry().load_adapter("google", model="gemini-x", client=client)

    assert isinstance(adapter, GoogleAdapter)
    assert adapter.model == "gemini-x"
    client.close()


def test_importing_the_package_and_its_entry_point_does_not_import_the_sdk() -> None:
    script = """
import json, sys
import affordance_google, affordance_google.plugin
from affordance.plugins import PluginHost
host = PluginHost(autoload=False)
host.register(affordance_google.plugin, name="google")
names = host.registry().provider_names()
before = "google.genai" in sys.modules
affordance_google.GoogleAdapter
print(json.dumps([before, "google.genai" in sys.modules, list(names)]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )

    assert json.loads(done.stdout) == [False, True, ["google"]]


def _doctor(environment: dict[str, str]) -> Any:
    done = subprocess.run(
        [sys.executable, "-m", "affordance", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )
    findings = json.loads(done.stdout)["findings"]
    (found,) = [f for f in findings if f["kind"] == "provider" and f["plugin"] == "google"]
    return found


def test_doctor_reports_the_sdk_version_against_its_range_and_whether_a_key_is_set() -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GOOGLE_", "GEMINI_"))}
    version = importlib.metadata.version("google-genai")

    unset = _doctor(base)
    with_key = _doctor({**base, "GEMINI_API_KEY": "secret-value-123"})

    assert unset["severity"] == "info"
    assert f"google-genai {version} within <4,>=1.39" in unset["message"]
    assert "GEMINI_API_KEY is not set" in unset["message"]
    assert "GEMINI_API_KEY is set" in with_key["message"]
    assert "secret-value-123" not in with_key["message"]
