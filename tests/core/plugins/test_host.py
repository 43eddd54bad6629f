"""PluginHost with plugin objects registered in code (depth 1: no entry points)."""

from __future__ import annotations

import importlib.metadata
import threading

import pluggy
import pytest

from affordance.plugins import (
    CodecSpec,
    HostedToolKindSpec,
    PluginHost,
    PluginLoadError,
    PluginStatus,
    ProviderSpec,
    SerializerSpec,
    hookimpl,
)


class SearchPlugin:
    """A well-behaved plugin using every collect hook."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def affordance_register_providers(self):
        self.calls += 1
        return [ProviderSpec("acme", "acme.adapter:Adapter")]

    @hookimpl
    def affordance_register_hosted_tool_kinds(self):
        return [HostedToolKindSpec("acme_search", "acme:Config", "acme:Result")]

    @hookimpl
    def affordance_register_codecs(self):
        return [CodecSpec("acme", "acme_search", "acme.codecs:Search")]

    @hookimpl
    def affordance_register_serializers(self):
        return [SerializerSpec("acme", "tool", "acme.serializers:Tools")]


class RaisingPlugin:
    @hookimpl
    def affordance_register_providers(self):
        return [ProviderSpec("other", "other.adapter:Adapter")]

    @hookimpl
    def affordance_register_codecs(self):
        raise RuntimeError("codec table is corrupt")


class Codecs:
    """A plugin offering given codec specs."""

    def __init__(self, *specs: CodecSpec) -> None:
        self.specs = list(specs)

    @hookimpl
    def affordance_register_codecs(self):
        return self.specs


def record(host: PluginHost, name: str):
    return next(r for r in host.records() if r.name == name)


def test_a_registered_plugin_contributes_every_spec_it_returns():
    host = PluginHost(autoload=False)
    host.register(SearchPlugin(), name="search")
    registry = host.registry()
    assert [str(k) for k in registry.keys(category=None)] == [
        "codec acme.acme_search",
        "hosted_tool_kind acme_search",
        "provider acme",
        "serializer acme.tool",
    ]
    row = record(host, "search")
    assert row.status is PluginStatus.LOADED
    assert row.source == "registered"
    assert row.distribution is None
    assert row.hooks == (
        "affordance_register_codecs",
        "affordance_register_hosted_tool_kinds",
        "affordance_register_providers",
        "affordance_register_serializers",
    )
    assert {c.plugin for c in row.contributions} == {"search"}


def test_the_registry_is_built_once_and_rebuilt_after_register():
    host = PluginHost(autoload=False)
    plugin = SearchPlugin()
    host.register(plugin, name="search")
    first = host.registry()
    assert host.registry() is first
    host.register(Codecs(CodecSpec("acme", "other_kind", "x:Y")), name="more")
    second = host.registry()
    assert second is not first
    assert plugin.calls == 1  # a plugin's specs are collected once
    assert second.providers_supporting("other_kind") == ("acme",)


def test_a_raising_hook_fails_its_plugin_and_spares_the_others():
    host = PluginHost(autoload=False)
    host.register(RaisingPlugin(), name="raising")
    host.register(SearchPlugin(), name="search")
    registry = host.registry()
    row = record(host, "raising")
    assert row.status is PluginStatus.FAILED
    assert row.reason == "affordance_register_codecs raised RuntimeError: codec table is corrupt"
    assert row.contributions == ()
    assert registry.provider_names() == ("acme",)  # nothing of the failed plugin remains
    assert record(host, "search").status is PluginStatus.LOADED


def test_a_hook_returning_the_wrong_thing_fails_its_plugin():
    class WrongType:
        @hookimpl
        def affordance_register_codecs(self):
            return [ProviderSpec("acme", "a:B")]

    host = PluginHost(autoload=False)
    host.register(WrongType(), name="wrong")
    host.registry()
    assert "expected a list of CodecSpec" in record(host, "wrong").reason


def test_a_misspelled_hook_is_reported_with_a_suggestion():
    class Typo:
        @hookimpl
        def affordance_register_codec(self):
            return []

    host = PluginHost(autoload=False)
    host.register(Typo(), name="typo")
    host.register(SearchPlugin(), name="search")
    host.registry()
    row = record(host, "typo")
    assert row.status is PluginStatus.FAILED
    assert row.reason == (
        "implements unknown hook(s): affordance_register_codec "
        "(did you mean affordance_register_codecs?)"
    )
    assert record(host, "search").status is PluginStatus.LOADED


def test_an_optional_unknown_hook_is_allowed():
    class Optional:
        @hookimpl(optionalhook=True)
        def affordance_future_hook(self):
            return []

    host = PluginHost(autoload=False)
    host.register(Optional(), name="optional")
    host.registry()
    assert record(host, "optional").status is PluginStatus.LOADED


def test_an_argument_the_spec_lacks_is_rejected_at_register():
    class BadArgs:
        @hookimpl
        def affordance_register_codecs(self, provider):
            return []

    host = PluginHost(autoload=False)
    with pytest.raises(PluginLoadError, match=r"cannot be registered.*provider"):
        host.register(BadArgs(), name="bad")
    assert host.records() == ()


def test_a_name_can_be_registered_once():
    host = PluginHost(autoload=False)
    host.register(SearchPlugin(), name="search")
    with pytest.raises(PluginLoadError, match="already registered"):
        host.register(SearchPlugin(), name="search")


def test_a_wrapper_on_a_collect_hook_fails_its_plugin():
    class Wrapper:
        @hookimpl(wrapper=True)
        def affordance_register_codecs(self):
            return (yield)

    host = PluginHost(autoload=False)
    host.register(Wrapper(), name="wrapper")
    host.registry()
    assert "not a wrapper" in record(host, "wrapper").reason


def test_one_plugin_contributing_a_key_twice_is_a_plugin_bug():
    spec = CodecSpec("acme", "acme_search", "acme.codecs:Search")
    host = PluginHost(autoload=False)
    host.register(Codecs(spec, spec), name="twice")
    host.registry()
    row = record(host, "twice")
    assert row.status is PluginStatus.FAILED
    assert row.reason == "contributes codec acme.acme_search twice"


def test_specs_for_another_plugin_api_are_incompatible():
    host = PluginHost(autoload=False)
    host.register(Codecs(CodecSpec("acme", "a", "x:Y", api=2)), name="future")
    host.register(
        Codecs(CodecSpec("acme", "b", "x:Y"), CodecSpec("acme", "c", "x:Y", api=3)), name="mixed"
    )
    registry = host.registry()
    future = record(host, "future")
    assert future.status is PluginStatus.INCOMPATIBLE
    assert future.reason.startswith("written for plugin API 2; this affordance speaks plugin API 1")
    mixed = record(host, "mixed")
    assert mixed.status is PluginStatus.LOADED
    assert mixed.notes == (
        "codec acme.c skipped: written for plugin API 3; this affordance speaks plugin API 1",
    )
    assert registry.providers_supporting("b") == ("acme",)
    assert registry.providers_supporting("c") == ()


def test_strict_mode_raises_for_a_broken_plugin_but_records_stay_readable():
    host = PluginHost(autoload=False, strict=True)
    host.register(RaisingPlugin(), name="raising")
    with pytest.raises(
        PluginLoadError, match="'raising' failed: affordance_register_codecs"
    ) as info:
        host.registry()
    assert info.value.plugin == "raising"
    assert record(host, "raising").status is PluginStatus.FAILED


def test_asking_for_the_registry_while_it_is_built_fails_that_plugin():
    host = PluginHost(autoload=False)

    class Eager:
        @hookimpl
        def affordance_register_providers(self):
            host.registry()
            return []

    host.register(Eager(), name="eager")
    host.registry()
    assert "while it is being built" in record(host, "eager").reason


def test_unregister_removes_a_plugin_and_its_contributions():
    host = PluginHost(autoload=False)
    host.register(SearchPlugin(), name="search")
    assert host.registry().provider_names() == ("acme",)
    host.unregister("search")
    assert host.registry().provider_names() == ()
    assert host.records() == ()


def test_the_registry_is_built_once_under_concurrent_first_use():
    plugin = SearchPlugin()
    host = PluginHost(autoload=False)
    host.register(plugin, name="search")
    barrier = threading.Barrier(8)
    seen = []

    def use():
        barrier.wait()
        seen.append(host.registry())

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(r) for r in seen}) == 1
    assert plugin.calls == 1


def test_autoload_off_scans_no_entry_points(monkeypatch):
    def forbidden(**_):
        raise AssertionError("entry points were scanned")

    monkeypatch.setattr(importlib.metadata, "entry_points", forbidden)
    host = PluginHost(autoload=False)
    host.register(SearchPlugin(), name="search")
    assert host.registry().provider_names() == ("acme",)
    monkeypatch.setenv("AFFORDANCE_PLUGIN_AUTOLOAD", "0")
    assert PluginHost().registry().keys() == ()


def test_building_a_host_scans_nothing(monkeypatch):
    def forbidden(**_):
        raise AssertionError("entry points were scanned")

    monkeypatch.setattr(importlib.metadata, "entry_points", forbidden)
    host = PluginHost()
    host.pin(("acme", "acme_search"), dist="x")
    assert "not built" in repr(host)


def test_tracing_writes_hook_calls_to_stderr(monkeypatch, capsys):
    monkeypatch.setenv("AFFORDANCE_TRACE_PLUGINS", "1")
    host = PluginHost(autoload=False)
    host.register(SearchPlugin(), name="search")
    host.pluginmanager.hook.affordance_register_providers()
    assert "affordance_register_providers" in capsys.readouterr().err


def test_the_pluginmanager_is_pluggys():
    assert isinstance(PluginHost(autoload=False).pluginmanager, pluggy.PluginManager)
