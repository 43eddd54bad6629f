"""Registry resolution (pin, priority, conflict) and lazy, checked imports."""

from __future__ import annotations

import pytest

from affordance.plugins import (
    CodecConflictError,
    CodecSpec,
    ContributionKey,
    HostedToolKindSpec,
    PinError,
    PluginConfigError,
    PluginHost,
    PluginUnavailableError,
    ProviderConflictError,
    ProviderSpec,
    UnknownProviderError,
    hookimpl,
)

CODEC_MODULE = """
class SearchCodec:
    kind = "acme_search"
    built = 0

    def __init__(self):
        type(self).built += 1

    def serialize(self, tool):
        return {"type": "acme_search"}

    def parse_output(self, response_items, tool):
        return None


class WrongKind(SearchCodec):
    kind = "other"


def exploding():
    raise RuntimeError("no credentials")
"""

ADAPTER_MODULE = """
from affordance.adapters import ProviderAdapter, ProviderModel


class AcmeModel(ProviderModel):
    name = "acme"


class AcmeAdapter(ProviderAdapter):
    name = "acme"

    def __init__(self, *, model="acme-1", **options):
        super().__init__(AcmeModel(), **options)
        self.model = model


NotAnAdapter = object
"""


class Offers:
    """A plugin offering the given specs from the matching hooks."""

    def __init__(self, *specs):
        self.specs = specs

    @hookimpl
    def affordance_register_codecs(self):
        return [s for s in self.specs if isinstance(s, CodecSpec)]

    @hookimpl
    def affordance_register_providers(self):
        return [s for s in self.specs if isinstance(s, ProviderSpec)]

    @hookimpl
    def affordance_register_hosted_tool_kinds(self):
        return [s for s in self.specs if isinstance(s, HostedToolKindSpec)]


def host_with(*plugins, **settings):
    host = PluginHost(autoload=False, **settings)
    for index, plugin in enumerate(plugins):
        host.register(plugin, name=f"plugin-{index}")
    return host


def test_a_codec_is_imported_and_built_on_first_use_only(fake_dists):
    fake_dists.module("acme_codecs_lazy", CODEC_MODULE)
    registry = host_with(Offers(CodecSpec("acme", "acme_search", "acme_codecs_lazy:SearchCodec")))
    registry = registry.registry()
    assert not fake_dists.imported("acme_codecs_lazy")
    codec = registry.codec("acme", "acme_search")
    assert codec is not None
    assert codec.kind == "acme_search"
    assert registry.codec("acme", "acme_search") is codec
    assert type(codec).built == 1


def test_no_codec_for_an_unknown_pair_and_who_supports_a_kind():
    registry = host_with(
        Offers(CodecSpec("acme", "acme_search", "m:A"), CodecSpec("zeta", "acme_search", "m:B"))
    ).registry()
    assert registry.codec("acme", "code_interpreter") is None
    assert registry.codec("omega", "acme_search") is None
    assert registry.providers_supporting("acme_search") == ("acme", "zeta")
    assert registry.providers_supporting("code_interpreter") == ()


def test_a_tie_is_a_conflict_at_first_use_naming_both_and_the_fix():
    registry = host_with(
        Offers(CodecSpec("acme", "acme_search", "one:Codec")),
        Offers(CodecSpec("acme", "acme_search", "two:Codec"), CodecSpec("acme", "other", "m:C")),
    ).registry()  # building does not raise
    with pytest.raises(CodecConflictError) as info:
        registry.codec("acme", "acme_search")
    message = str(info.value)
    assert "plugin 'plugin-0'" in message
    assert "plugin 'plugin-1'" in message
    assert 'AFFORDANCE_PIN="acme.acme_search=plugin-0"' in message
    assert "AFFORDANCE_DISABLE_PLUGINS=plugin-1" in message
    assert [c.plugin for c in info.value.candidates] == ["plugin-0", "plugin-1"]
    assert registry.providers_supporting("other") == ("acme",)  # other keys still work
    assert [type(e) for e in registry.conflicts()] == [CodecConflictError]


def test_the_highest_priority_wins_whatever_the_registration_order(fake_dists):
    fake_dists.module("acme_codecs_priority", CODEC_MODULE)
    official = Offers(CodecSpec("acme", "acme_search", "acme_codecs_priority:WrongKind"))
    override = Offers(
        CodecSpec("acme", "acme_search", "acme_codecs_priority:SearchCodec", priority=10)
    )
    for order in ((official, override), (override, official)):
        registry = host_with(*order).registry()
        chosen = registry.resolve(ContributionKey.codec("acme", "acme_search"))
        assert chosen.priority == 10
        assert registry.selected(chosen) is True


def test_a_pin_beats_priority():
    host = host_with(
        Offers(CodecSpec("acme", "acme_search", "one:Codec")),
        Offers(CodecSpec("acme", "acme_search", "two:Codec", priority=5)),
    )
    host.pin(("acme", "acme_search"), dist="plugin-0")
    chosen = host.registry().resolve(ContributionKey.codec("acme", "acme_search"))
    assert chosen.target == "one:Codec"
    host.unpin(("acme", "acme_search"))
    assert host.registry().resolve(chosen.key).target == "two:Codec"


def test_pins_come_from_the_environment(plugin_env):
    plugin_env.setenv("AFFORDANCE_PIN", "acme.acme_search=plugin-1, acme=plugin-0")
    host = host_with(
        Offers(CodecSpec("acme", "acme_search", "one:Codec"), ProviderSpec("acme", "a:A")),
        Offers(CodecSpec("acme", "acme_search", "two:Codec"), ProviderSpec("acme", "b:B")),
    )
    registry = host.registry()
    assert registry.resolve(ContributionKey.codec("acme", "acme_search")).target == "two:Codec"
    assert registry.provider("acme").adapter == "a:A"


@pytest.mark.parametrize("value", ["acme.acme_search", "=dist", "weird:acme=x"])
def test_a_malformed_pin_is_a_config_error(plugin_env, value):
    plugin_env.setenv("AFFORDANCE_PIN", value)
    with pytest.raises(PluginConfigError):
        PluginHost(autoload=False)


def test_a_pin_naming_a_non_contributor_is_an_error_at_use():
    host = host_with(Offers(CodecSpec("acme", "acme_search", "one:Codec")))
    host.pin(("acme", "acme_search"), dist="affordance-gone")
    with pytest.raises(PinError, match="pinned to 'affordance-gone', which does not contribute"):
        host.registry().codec("acme", "acme_search")


def test_each_decision_says_who_won_and_why():
    key = ContributionKey.codec("acme", "acme_search")
    alone = host_with(Offers(CodecSpec("acme", "acme_search", "one:Codec"))).registry()
    assert alone.decision(key).reason == "only"
    assert alone.decision(key).describe() == "the only contribution"

    host = host_with(
        Offers(CodecSpec("acme", "acme_search", "one:Codec", priority=9)),
        Offers(CodecSpec("acme", "acme_search", "two:Codec")),
    )
    by_priority = host.registry().decision(key)
    assert (by_priority.winner.target, by_priority.reason) == ("one:Codec", "priority")
    assert by_priority.describe() == "priority 9 over plugin-1 (0)"

    host.pin(key, dist="plugin-1")
    by_pin = host.registry().decision(key)
    assert (by_pin.winner.target, by_pin.reason) == ("two:Codec", "pin")
    assert by_pin.describe() == "pinned to plugin-1"
    assert host.registry().decision(ContributionKey.codec("acme", "other")) is None


def test_a_provider_name_tie_is_a_provider_conflict():
    registry = host_with(
        Offers(ProviderSpec("acme", "one:Adapter")), Offers(ProviderSpec("acme", "two:Adapter"))
    ).registry()
    with pytest.raises(ProviderConflictError, match='AFFORDANCE_PIN="acme=plugin-0"'):
        registry.load_adapter("acme")


def test_load_adapter_imports_and_builds_the_adapter_with_options(fake_dists):
    fake_dists.module("acme_adapter_ok", ADAPTER_MODULE)
    registry = host_with(Offers(ProviderSpec("acme", "acme_adapter_ok:AcmeAdapter"))).registry()
    assert not fake_dists.imported("acme_adapter_ok")
    adapter = registry.load_adapter("acme", model="acme-2", max_turns=3)
    assert (type(adapter).__name__, adapter.model, adapter.max_turns) == (
        "AcmeAdapter",
        "acme-2",
        3,
    )


def test_load_adapter_rejects_a_target_that_is_not_an_adapter(fake_dists):
    fake_dists.module("acme_adapter_bad", ADAPTER_MODULE)
    registry = host_with(Offers(ProviderSpec("acme", "acme_adapter_bad:NotAnAdapter"))).registry()
    with pytest.raises(PluginUnavailableError, match="is not a ProviderAdapter subclass"):
        registry.load_adapter("acme")


def test_an_unknown_provider_lists_available_and_unavailable_ones(fake_dists):
    fake_dists.dist("fakesdk", "1.2")
    registry = host_with(
        Offers(ProviderSpec("acme", "a:A")),
        Offers(ProviderSpec("zeta", "z:Z", sdk="fakesdk>=1.66")),
    ).registry()
    with pytest.raises(UnknownProviderError) as info:
        registry.load_adapter("opneai")
    assert str(info.value) == (
        "no provider named 'opneai'. Available: acme. Unavailable: zeta (fakesdk 1.2 < 1.66)."
    )


def test_with_no_providers_the_error_says_what_to_install():
    with pytest.raises(UnknownProviderError, match="pip install affordance-openai"):
        host_with().registry().load_adapter("openai")


def test_a_too_old_sdk_makes_a_provider_unavailable_without_importing_it(fake_dists):
    fake_dists.dist("fakesdk", "1.2")
    fake_dists.module("acme_adapter_old_sdk", ADAPTER_MODULE)
    registry = host_with(
        Offers(ProviderSpec("acme", "acme_adapter_old_sdk:AcmeAdapter", sdk="fakesdk>=1.66,<4"))
    ).registry()
    with pytest.raises(PluginUnavailableError, match=r"unavailable: fakesdk 1\.2 < 1\.66"):
        registry.load_adapter("acme")
    assert not fake_dists.imported("acme_adapter_old_sdk")


def test_a_missing_sdk_makes_a_codec_unavailable():
    registry = host_with(
        Offers(CodecSpec("acme", "acme_search", "m:C", sdk="affordance-test-absent-sdk>=1"))
    ).registry()
    contribution = registry.resolve(ContributionKey.codec("acme", "acme_search"))
    assert registry.unavailable_reason(contribution) == (
        "affordance-test-absent-sdk is not installed (needs affordance-test-absent-sdk>=1)"
    )
    with pytest.raises(PluginUnavailableError, match="is unavailable: affordance-test-absent"):
        registry.codec("acme", "acme_search")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("acme_codecs_bad:WrongKind", "built a codec that has kind 'other'"),
        ("acme_codecs_bad:exploding", r"exploding\(\) raised RuntimeError: no credentials"),
        ("acme_codecs_bad:Missing", "cannot be imported from acme_codecs_bad:Missing"),
        ("acme_codecs_absent:Codec", "ModuleNotFoundError"),
    ],
)
def test_a_codec_that_cannot_be_built_is_unavailable_with_the_reason(fake_dists, target, message):
    fake_dists.module("acme_codecs_bad", CODEC_MODULE)
    registry = host_with(Offers(CodecSpec("acme", "acme_search", target))).registry()
    with pytest.raises(PluginUnavailableError, match=message):
        registry.codec("acme", "acme_search")


KIND_MODULES = {
    "acme_kind_config": "class Config:\n    pass\n",
    "acme_kind_output": "class Result:\n    pass\n\n\nNOT_A_CLASS = 3\n",
}


def test_a_kinds_output_type_is_imported_on_its_own_first_use_not_with_its_config(fake_dists):
    for name, source in KIND_MODULES.items():
        fake_dists.module(name, source)
    spec = HostedToolKindSpec("acme_search", "acme_kind_config:Config", "acme_kind_output:Result")
    registry = host_with(Offers(spec)).registry()

    config, registered_by = registry.hosted_tool_config("acme_search")
    assert config.__name__ == "Config"
    assert not fake_dists.imported("acme_kind_output")

    output, also_registered_by = registry.hosted_tool_output("acme_search")
    assert (output.__module__, output.__name__) == ("acme_kind_output", "Result")
    assert also_registered_by is registered_by
    assert registry.hosted_tool_output("acme_search")[0] is output
    assert registry.hosted_tool_output("web_search") is None


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("acme_kind_output:Missing", "cannot be imported from acme_kind_output:Missing"),
        ("acme_kind_absent:Result", "ModuleNotFoundError"),
        ("acme_kind_output:NOT_A_CLASS", "output acme_kind_output:NOT_A_CLASS is not a class"),
    ],
)
def test_an_output_type_that_cannot_be_loaded_is_unavailable_with_the_reason(
    fake_dists, output, message
):
    for name, source in KIND_MODULES.items():
        fake_dists.module(name, source)
    spec = HostedToolKindSpec("acme_search", "acme_kind_config:Config", output)
    registry = host_with(Offers(spec)).registry()
    assert registry.hosted_tool_config("acme_search") is not None  # the config still loads
    with pytest.raises(PluginUnavailableError, match=message):
        registry.hosted_tool_output("acme_search")


def test_serializers_and_hosted_tool_kinds_resolve_like_codecs(fake_dists):
    from affordance.plugins import HostedToolKindSpec, SerializerSpec

    fake_dists.module(
        "acme_serializers",
        "class Tools:\n    def declare(self, tool):\n        return None\n"
        "class Broken:\n    pass\n",
    )

    class Plugin:
        @hookimpl
        def affordance_register_serializers(self):
            return [
                SerializerSpec("acme", "tool", "acme_serializers:Tools"),
                SerializerSpec("acme", "output", "acme_serializers:Broken"),
            ]

        @hookimpl
        def affordance_register_hosted_tool_kinds(self):
            return [HostedToolKindSpec("acme_search", "m:Config", "m:Result")]

    registry = host_with(Plugin()).registry()
    assert type(registry.serializer("acme", "tool")).__name__ == "Tools"
    assert registry.serializer("acme", "tool_result") is None
    with pytest.raises(PluginUnavailableError, match="has no output_format"):
        registry.serializer("acme", "output")
    with pytest.raises(ValueError, match="unknown serializer role 'tools'"):
        registry.serializer("acme", "tools")
    assert registry.hosted_tool_kinds() == ("acme_search",)
    assert registry.hosted_tool_kind("acme_search").output == "m:Result"
    assert registry.hosted_tool_kind("web_search") is None


def test_keys_parse_from_pin_text():
    assert ContributionKey.parse("openai.web_search") == ContributionKey.codec(
        "openai", "web_search"
    )
    assert ContributionKey.parse("openai") == ContributionKey.provider("openai")
    assert ContributionKey.parse("serializer:openai.tool") == ContributionKey.serializer(
        "openai", "tool"
    )
    assert ContributionKey.coerce(("openai", "web_search")).pin_text == "openai.web_search"
    with pytest.raises(PluginConfigError):
        ContributionKey.parse("codec:openai")
