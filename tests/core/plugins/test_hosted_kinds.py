"""A hosted kind declared once with ``affordance.tools.HostedKind``: its entry module's hooks
(``affordance.plugins.hosted_kind_hooks``) register the kind and its codecs by dotted path,
importing nothing, and its tool factory and section (``affordance.prompt.HostedKindSection``)
give a tool the registry's codecs declare and read."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from affordance import MarkdownSection, PromptTemplate
from affordance.errors import PromptValidationError
from affordance.plugins import HostedToolKindSpec, PluginHost, PluginStatus
from affordance.prompt import HostedKindSection
from affordance.tools import HostedKind, HostedTool

ENTRY_MODULE = """
from affordance.plugins import hosted_kind_hooks
from affordance.tools import HostedKind

ECHO = HostedKind(
    kind="echo_search",
    config="echo_parts:EchoConfig",
    output="echo_parts:EchoResult",
    codecs={"openai": "echo_parts:OpenAIEchoCodec", "google": "echo_parts:GoogleEchoCodec"},
    description="Echoes the query back",
    tool_description="Search by echoing.",
    title="Echo Search",
    guidance="You can echo. Echo when in doubt.",
)
echo_tool = ECHO.tool

affordance_register_hosted_tool_kinds, affordance_register_codecs = hosted_kind_hooks(ECHO)
"""

PARTS_MODULE = """
from dataclasses import dataclass

from affordance.prompt import HostedKindSection
from echo_plugin import ECHO


@dataclass(frozen=True, slots=True)
class EchoConfig:
    loud: bool = False


@dataclass(frozen=True, slots=True)
class EchoResult:
    text: str


class OpenAIEchoCodec:
    kind = "echo_search"

    def serialize(self, tool):
        return {"type": "echo", "loud": tool.config.loud}

    def parse_output(self, response_items, tool):
        texts = [i["text"] for i in response_items if i.get("type") == "echo_call"]
        return EchoResult(" ".join(texts)) if texts else None


class GoogleEchoCodec(OpenAIEchoCodec):
    def serialize(self, tool):
        return {"echo": {}}


class EchoSection(HostedKindSection[EchoConfig]):
    hosted_kind = ECHO
"""


@pytest.fixture
def echo(fake_dists: Any, plugin_host: PluginHost) -> Any:
    fake_dists.module("echo_plugin", ENTRY_MODULE)
    fake_dists.module("echo_parts", PARTS_MODULE)
    plugin_host.register(importlib.import_module("echo_plugin"), name="echo")
    return fake_dists


def test_registering_the_declared_kind_imports_neither_its_types_nor_its_codecs(
    echo: Any, plugin_host: PluginHost
) -> None:
    plugin_host.registry()

    (record,) = plugin_host.records()
    assert record.status is PluginStatus.LOADED, record.reason
    assert not echo.imported("echo_parts")


def test_the_registry_sees_the_kind_its_types_and_a_codec_per_declared_provider(
    echo: Any, plugin_host: PluginHost
) -> None:
    registry = plugin_host.registry()
    parts = importlib.import_module("echo_parts")

    assert registry.hosted_tool_kinds() == ("echo_search",)
    assert registry.hosted_tool_kind("echo_search") == HostedToolKindSpec(
        kind="echo_search",
        config="echo_parts:EchoConfig",
        output="echo_parts:EchoResult",
        description="Echoes the query back",
    )
    assert registry.providers_supporting("echo_search") == ("google", "openai")
    assert type(registry.codec("openai", "echo_search")) is parts.OpenAIEchoCodec
    assert type(registry.codec("google", "echo_search")) is parts.GoogleEchoCodec
    assert registry.codec("anthropic", "echo_search") is None
    config = registry.hosted_tool_config("echo_search")
    output = registry.hosted_tool_output("echo_search")
    assert config is not None
    assert config[0] is parts.EchoConfig
    assert output is not None
    assert output[0] is parts.EchoResult


def test_the_declared_tool_factory_fills_the_kind_its_description_and_default_config(
    echo: Any, plugin_host: PluginHost
) -> None:
    entry = importlib.import_module("echo_plugin")
    parts = importlib.import_module("echo_parts")

    default = entry.echo_tool()
    named = entry.echo_tool(parts.EchoConfig(loud=True), name="shout", description="Shout.")

    assert default == HostedTool(
        kind="echo_search", name="echo_search", description="Search by echoing.",
        config=parts.EchoConfig(),
    )  # fmt: skip
    assert (named.name, named.description, named.config.loud) == ("shout", "Shout.", True)


def test_the_declared_section_renders_its_guidance_and_its_tool_reaches_the_codec(
    echo: Any, plugin_host: PluginHost
) -> None:
    parts = importlib.import_module("echo_parts")
    section = parts.EchoSection(parts.EchoConfig(loud=True))
    prompt = PromptTemplate(
        ns="tests",
        key="echo",
        sections=[MarkdownSection(title="Task", template="Echo 'hi'."), section],
    )

    rendered = prompt.render()
    (tool,) = rendered.hosted_tools
    codec = plugin_host.registry().codec("openai", "echo_search")

    assert "## 2 Echo Search\nYou can echo. Echo when in doubt." in rendered.text
    assert (section.key, tool.name, section.config) == (
        "echo_search",
        "echo_search",
        parts.EchoConfig(loud=True),
    )
    assert codec is not None
    assert codec.serialize(tool) == {"type": "echo", "loud": True}
    assert codec.parse_output([{"type": "echo_call", "text": "hi"}], tool) == parts.EchoResult("hi")


def test_the_declared_section_takes_its_defaults_and_every_override(echo: Any) -> None:
    parts = importlib.import_module("echo_parts")

    plain = parts.EchoSection()
    custom = parts.EchoSection(key="k", name="n", title="T", template="Only when asked.")

    assert (plain.title, plain.template, plain.config) == (
        "Echo Search",
        "You can echo. Echo when in doubt.",
        parts.EchoConfig(),
    )
    assert (custom.key, custom.tool.name, custom.title, custom.template) == (
        "k",
        "n",
        "T",
        "Only when asked.",
    )


def test_a_section_class_naming_no_kind_is_a_type_error_when_built() -> None:
    class Unnamed(HostedKindSection[Any]):
        pass

    with pytest.raises(TypeError, match="Unnamed must name its kind"):
        Unnamed()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("kind", "Echo-Search"),
        ("config", "echo_parts.EchoConfig"),
        ("output", ""),
        ("codecs", {"openai": "echo_parts"}),
    ],
)
def test_a_malformed_declaration_fails_when_declared_naming_the_field(
    field: str, value: object
) -> None:
    fields: dict[str, Any] = {
        "kind": "echo_search",
        "config": "echo_parts:EchoConfig",
        "output": "echo_parts:EchoResult",
        "codecs": {"openai": "echo_parts:OpenAIEchoCodec"},
        "tool_description": "Search by echoing.",
        "title": "Echo Search",
        "guidance": "You can echo.",
    }

    with pytest.raises(PromptValidationError, match=field):
        HostedKind(**{**fields, field: value})
