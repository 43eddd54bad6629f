"""Entry-point discovery through real ``.dist-info`` directories on sys.path (depth 2)."""

from __future__ import annotations

import pytest

from affordance.plugins import (
    CodecConflictError,
    PluginHost,
    PluginLoadError,
    PluginStatus,
)

GOOD = """
from affordance.plugins import CodecSpec, ProviderSpec, hookimpl

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("{provider}", "{kind}", "{module}_codec:Codec"{extra})]
"""

PROVIDER = """
from affordance.plugins import ProviderSpec, hookimpl

@hookimpl
def affordance_register_providers():
    return [ProviderSpec("{name}", "{name}_adapter_mod:Adapter", sdk="{sdk}")]
"""

INCOMPATIBLE = """
from affordance.plugins import CodecSpec, hookimpl

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("acme", "future_kind", "m:C", api=2)]
"""


def good_plugin(fake_dists, dist, ep, module, *, version="1.0", kind="t_kind", extra="", **kw):
    source = GOOD.format(provider="tprov", kind=kind, module=module, extra=extra)
    fake_dists.dist(dist, version, entry_points={ep: module}, modules={module: source}, **kw)


def ours(host, *names):
    return {r.name: r for r in host.records() if r.name in names}


def test_plugins_load_sorted_with_distribution_and_version(fake_dists):
    good_plugin(fake_dists, "affordance-tzeta", "t-zeta", "t_zeta_plugin", version="2.1")
    good_plugin(fake_dists, "affordance-talpha", "t-alpha", "t_alpha_plugin", kind="other_kind")
    host = PluginHost()
    assert not fake_dists.imported("t_alpha_plugin")  # building the host imports nothing
    names = [r.name for r in host.records()]
    assert names.index("t-alpha") < names.index("t-zeta")
    zeta = ours(host, "t-zeta")["t-zeta"]
    assert (zeta.status, zeta.distribution, zeta.version, zeta.value) == (
        PluginStatus.LOADED,
        "affordance-tzeta",
        "2.1",
        "t_zeta_plugin",
    )
    assert zeta.requires == ("affordance>=0.1,<1",)
    assert [str(c.key) for c in zeta.contributions] == ["codec tprov.t_kind"]
    assert zeta.contributions[0].distribution == "affordance-tzeta"


def test_a_plugin_requires_what_it_asks_of_affordance_outside_extras(fake_dists):
    requires = (
        "affordance>=0.1,<1",
        'affordance[otel]>=0.2; extra == "otel"',
        "affordance-openai>=1",
        "openai>=1.66",
    )
    good_plugin(fake_dists, "affordance-treq", "t-req", "t_req_plugin", requires=requires)
    assert ours(PluginHost(), "t-req")["t-req"].requires == ("affordance>=0.1,<1",)


def test_a_broken_plugin_is_recorded_and_the_others_load(fake_dists):
    fake_dists.dist(
        "affordance-tbroken",
        entry_points={"t-broken": "t_broken_plugin"},
        modules={"t_broken_plugin": "raise ImportError('needs libfoo')\n"},
    )
    good_plugin(fake_dists, "affordance-tgood", "t-good", "t_good_plugin")
    host = PluginHost()
    registry = host.registry()
    rows = ours(host, "t-broken", "t-good")
    assert rows["t-broken"].status is PluginStatus.FAILED
    assert rows["t-broken"].reason == "import failed: ImportError: needs libfoo"
    assert rows["t-good"].status is PluginStatus.LOADED
    assert registry.providers_supporting("t_kind") == ("tprov",)


def test_an_entry_point_to_a_missing_attribute_fails(fake_dists):
    fake_dists.dist(
        "affordance-tattr",
        entry_points={"t-attr": "t_attr_plugin:nothing_here"},
        modules={"t_attr_plugin": ""},
    )
    row = ours(PluginHost(), "t-attr")["t-attr"]
    assert row.status is PluginStatus.FAILED
    assert row.reason.startswith("import failed: AttributeError")


def test_duplicate_entry_point_names_load_neither_and_name_both(fake_dists):
    good_plugin(fake_dists, "affordance-tdup-one", "t-dup", "t_dup_one")
    good_plugin(fake_dists, "affordance-tdup-two", "t-dup", "t_dup_two", version="2.0")
    host = PluginHost()
    rows = [r for r in host.records() if r.name == "t-dup"]
    assert [(r.distribution, r.status) for r in rows] == [
        ("affordance-tdup-one", PluginStatus.DUPLICATE),
        ("affordance-tdup-two", PluginStatus.DUPLICATE),
    ]
    assert "also declared by affordance-tdup-two 2.0; neither is loaded" in rows[0].reason
    assert "AFFORDANCE_DISABLE_PLUGINS=affordance-tdup-one" in rows[1].reason
    assert not fake_dists.imported("t_dup_one")
    assert not fake_dists.imported("t_dup_two")


def test_disabling_one_duplicate_lets_the_other_load(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tdup-one", "t-dup", "t_dup_one")
    good_plugin(fake_dists, "affordance-tdup-two", "t-dup", "t_dup_two")
    plugin_env.setenv("AFFORDANCE_DISABLE_PLUGINS", "Affordance_TDup_One")
    statuses = [(r.distribution, r.status) for r in PluginHost().records() if r.name == "t-dup"]
    assert statuses == [
        ("affordance-tdup-one", PluginStatus.BLOCKED),
        ("affordance-tdup-two", PluginStatus.LOADED),
    ]


@pytest.mark.parametrize("disabled", ["t-blocked", "affordance-tblocked"])
def test_disabled_plugins_are_blocked_and_never_imported(fake_dists, plugin_env, disabled):
    good_plugin(fake_dists, "affordance-tblocked", "t-blocked", "t_blocked_plugin")
    plugin_env.setenv("AFFORDANCE_DISABLE_PLUGINS", f" other ,{disabled}")
    row = ours(PluginHost(), "t-blocked")["t-blocked"]
    assert row.status is PluginStatus.BLOCKED
    assert row.reason == "disabled by the disable list (AFFORDANCE_DISABLE_PLUGINS)"
    assert not fake_dists.imported("t_blocked_plugin")


def test_disable_in_code_adds_to_the_environment(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tone", "t-one", "t_one_plugin")
    good_plugin(fake_dists, "affordance-ttwo", "t-two", "t_two_plugin", kind="k2")
    plugin_env.setenv("AFFORDANCE_DISABLE_PLUGINS", "t-one")
    rows = ours(PluginHost(disable=["t-two"]), "t-one", "t-two")
    assert {name: row.status for name, row in rows.items()} == {
        "t-one": PluginStatus.BLOCKED,
        "t-two": PluginStatus.BLOCKED,
    }


def test_the_allowlist_loads_only_what_it_names(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tone", "t-one", "t_one_plugin")
    good_plugin(fake_dists, "affordance-ttwo", "t-two", "t_two_plugin", kind="k2")
    plugin_env.setenv("AFFORDANCE_LOAD_PLUGINS", "affordance-ttwo")
    host = PluginHost()
    rows = ours(host, "t-one", "t-two")
    assert rows["t-one"].status is PluginStatus.BLOCKED
    assert rows["t-one"].reason == "not in the allowlist (AFFORDANCE_LOAD_PLUGINS)"
    assert rows["t-two"].status is PluginStatus.LOADED
    assert all(r.status is PluginStatus.BLOCKED for r in host.records() if r.name != "t-two")


def test_an_empty_allowlist_loads_nothing(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tone", "t-one", "t_one_plugin")
    plugin_env.setenv("AFFORDANCE_LOAD_PLUGINS", "")
    host = PluginHost()
    assert {r.status for r in host.records()} == {PluginStatus.BLOCKED}
    assert host.registry().keys() == ()
    assert PluginHost(load=["t-one"]).registry().providers_supporting("t_kind") == ("tprov",)


def test_strict_mode_from_the_environment_raises_naming_the_plugin(fake_dists, plugin_env):
    fake_dists.dist(
        "affordance-tbroken",
        entry_points={"t-broken": "t_broken_plugin"},
        modules={"t_broken_plugin": "raise ImportError('needs libfoo')\n"},
    )
    plugin_env.setenv("AFFORDANCE_STRICT_PLUGINS", "1")
    plugin_env.setenv("AFFORDANCE_LOAD_PLUGINS", "t-broken")
    with pytest.raises(PluginLoadError) as info:
        PluginHost().registry()
    assert info.value.distribution == "affordance-tbroken"
    assert "'t-broken' (affordance-tbroken 1.0) failed: import failed" in str(info.value)
    assert PluginHost(strict=False).registry() is not None  # the API can turn strictness off


def test_strict_mode_raises_for_duplicates(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tdup-one", "t-dup", "t_dup_one")
    good_plugin(fake_dists, "affordance-tdup-two", "t-dup", "t_dup_two")
    plugin_env.setenv("AFFORDANCE_LOAD_PLUGINS", "t-dup")
    with pytest.raises(PluginLoadError, match="duplicate") as info:
        PluginHost(strict=True).registry()
    assert info.value.status == "duplicate"


def test_a_malformed_flag_is_a_config_error(plugin_env):
    from affordance.plugins import PluginConfigError

    plugin_env.setenv("AFFORDANCE_STRICT_PLUGINS", "maybe")
    with pytest.raises(PluginConfigError, match="AFFORDANCE_STRICT_PLUGINS='maybe'"):
        PluginHost()


def test_a_plugin_for_another_plugin_api_is_incompatible(fake_dists):
    fake_dists.dist(
        "affordance-tfuture",
        "9.0",
        entry_points={"t-future": "t_future_plugin"},
        modules={"t_future_plugin": INCOMPATIBLE},
    )
    row = ours(PluginHost(), "t-future")["t-future"]
    assert row.status is PluginStatus.INCOMPATIBLE
    assert "written for plugin API 2" in row.reason


def test_two_distributions_tied_on_a_codec_conflict_until_pinned(fake_dists, plugin_env):
    good_plugin(fake_dists, "affordance-tcodec-a", "t-codec-a", "t_codec_a")
    good_plugin(fake_dists, "affordance-tcodec-b", "t-codec-b", "t_codec_b")
    with pytest.raises(CodecConflictError) as info:
        PluginHost().registry().codec("tprov", "t_kind")
    message = str(info.value)
    assert "affordance-tcodec-a 1.0 (plugin 't-codec-a')" in message
    assert "affordance-tcodec-b 1.0 (plugin 't-codec-b')" in message
    assert 'AFFORDANCE_PIN="tprov.t_kind=affordance-tcodec-a"' in message
    plugin_env.setenv("AFFORDANCE_PIN", "tprov.t_kind=affordance-tcodec-b")
    fake_dists.module(
        "t_codec_b_codec",
        "class Codec:\n    kind = 't_kind'\n"
        "    def serialize(self, tool): return {}\n"
        "    def parse_output(self, items, tool): return None\n",
    )
    codec = PluginHost().registry().codec("tprov", "t_kind")
    assert type(codec).__module__ == "t_codec_b_codec"


def test_a_higher_priority_distribution_wins(fake_dists):
    good_plugin(fake_dists, "affordance-tcodec-a", "t-codec-a", "t_codec_a")
    good_plugin(fake_dists, "affordance-tcodec-b", "t-codec-b", "t_codec_b", extra=", priority=5")
    registry = PluginHost().registry()
    (winner,) = [
        c
        for c in registry.contributions()
        if c.plugin.startswith("t-codec") and registry.selected(c)
    ]
    assert winner.distribution == "affordance-tcodec-b"


def test_providers_with_missing_or_old_sdks_are_unavailable_with_reasons(fake_dists):
    fake_dists.dist("tfakesdk", "1.2")
    for name, sdk in (("tnew", "tfakesdk>=1.66,<4"), ("tgone", "affordance-test-absent-sdk>=1")):
        fake_dists.dist(
            f"affordance-{name}",
            entry_points={name: f"{name}_plugin"},
            modules={f"{name}_plugin": PROVIDER.format(name=name, sdk=sdk)},
        )
    registry = PluginHost().registry()
    reasons = {
        c.key.parts[0]: registry.unavailable_reason(c)
        for c in registry.contributions()
        if c.key.category == "provider" and c.key.parts[0] in ("tnew", "tgone")
    }
    assert reasons == {
        "tnew": "tfakesdk 1.2 < 1.66",
        "tgone": (
            "affordance-test-absent-sdk is not installed (needs affordance-test-absent-sdk>=1)"
        ),
    }
