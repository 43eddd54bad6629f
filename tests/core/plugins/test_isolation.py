"""Plugin code raising any BaseException but KeyboardInterrupt is contained (depth 2).

Each hostile plugin is a real distribution on ``sys.path`` (``fake_dists``): it may raise at
import, in a collect hook, in a codec /
serializer factory, or when what it hands back is shown. The plugin is recorded (failed, or an
unavailable contribution) with the reason, every other plugin keeps working — the installed
provider plugins included — and ``affordance plugins`` / ``affordance doctor`` report it.
"""

from __future__ import annotations

import json

import pytest

from affordance.cli import main
from affordance.plugins import (
    ContributionKey,
    PluginHost,
    PluginStatus,
    PluginUnavailableError,
)

GOOD = """
from affordance.plugins import CodecSpec, hookimpl

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_good", "t_good_plugin:Codec")]
"""

# What a hostile plugin raises, and how its reason reads.
ESCAPES = [
    ("SystemExit(3)", "SystemExit: 3"),
    ("GeneratorExit()", "GeneratorExit"),
    ("Hostile('the plugin gave up')", "Hostile: the plugin gave up"),
]

PRELUDE = """
from affordance.plugins import CodecSpec, SerializerSpec, hookimpl

class Hostile(BaseException):
    pass
"""


def install(fake_dists, name: str, body: str) -> str:
    """A distribution ``affordance-<name>`` whose entry point is module ``<name>_plugin``."""
    module = f"{name.replace('-', '_')}_plugin"
    source = PRELUDE + body
    fake_dists.dist(f"affordance-{name}", entry_points={name: module}, modules={module: source})
    return module


def install_good(fake_dists) -> None:
    fake_dists.dist("affordance-t-good", entry_points={"t-good": "t_good_plugin"})
    fake_dists.module("t_good_plugin", GOOD)


TIED = """
@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_tied", "{module}:Codec", priority={priority})]
"""


def install_tied(fake_dists, name: str, *, priority: int = 0) -> None:
    """A plugin contributing the key ``codec tprov.t_tied``."""
    module = f"{name.replace('-', '_')}_plugin"
    install(fake_dists, name, TIED.format(module=module, priority=priority))


def row(host: PluginHost, name: str):
    return next(r for r in host.records() if r.name == name)


def assert_others_work(host: PluginHost, hostile: str) -> None:
    """The good plugin loaded, and every provider installed for real is still offered."""
    registry = host.registry()
    assert row(host, "t-good").status is PluginStatus.LOADED
    assert registry.candidates(ContributionKey.codec("tprov", "t_good"))
    baseline = PluginHost(disable=[hostile]).registry().provider_names()
    assert (
        registry.provider_names() == baseline
    )  # e.g. "openai" when affordance-openai is installed


@pytest.mark.parametrize(("raised", "reason"), ESCAPES)
def test_a_plugin_raising_at_import_is_failed_and_the_others_load(fake_dists, raised, reason):
    install(fake_dists, "t-hostile", f"raise {raised}\n")
    install_good(fake_dists)
    host = PluginHost()
    hostile = row(host, "t-hostile")
    assert hostile.status is PluginStatus.FAILED
    assert hostile.reason == f"import failed: {reason}"
    assert_others_work(host, "t-hostile")


@pytest.mark.parametrize(("raised", "reason"), ESCAPES)
@pytest.mark.parametrize("hook", ["affordance_register_codecs", "affordance_register_serializers"])
def test_a_plugin_raising_in_a_hook_is_failed(fake_dists, hook, raised, reason):
    install(fake_dists, "t-hostile", f"\n@hookimpl\ndef {hook}():\n    raise {raised}\n")
    install_good(fake_dists)
    host = PluginHost()
    hostile = row(host, "t-hostile")
    assert hostile.status is PluginStatus.FAILED
    assert hostile.reason == f"{hook} raised {reason}"
    assert not hostile.contributions
    assert_others_work(host, "t-hostile")


HOSTILE_OBJECTS = """
class Sly:
    def __repr__(self):
        raise SystemExit(3)

    def __eq__(self, other):
        raise SystemExit(3)

    __hash__ = object.__hash__


class Unsayable(BaseException):
    def __str__(self):
        raise SystemExit(3)
"""


def test_a_hook_answering_an_object_that_raises_when_shown_is_failed(fake_dists):
    body = "\n@hookimpl\ndef affordance_register_codecs():\n    return Sly()\n"
    install(fake_dists, "t-hostile", HOSTILE_OBJECTS + body)
    install_good(fake_dists)
    host = PluginHost()
    hostile = row(host, "t-hostile")
    assert hostile.status is PluginStatus.FAILED
    assert hostile.reason == (
        "affordance_register_codecs returned <Sly object>; expected a list of CodecSpec"
    )
    assert_others_work(host, "t-hostile")


def test_an_exception_that_raises_when_shown_is_named_by_its_type(fake_dists):
    install(fake_dists, "t-hostile", HOSTILE_OBJECTS + "raise Unsayable\n")
    install_good(fake_dists)
    host = PluginHost()
    assert row(host, "t-hostile").reason == "import failed: Unsayable"
    assert_others_work(host, "t-hostile")


FACTORY = """
@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_bad", "t_hostile_plugin:make_codec")]

@hookimpl
def affordance_register_serializers():
    return [SerializerSpec("tprov", "tool", "t_hostile_plugin:make_serializer")]

def make_codec():
    raise {raised}

def make_serializer():
    raise {raised}
"""


@pytest.mark.parametrize(("raised", "reason"), ESCAPES)
def test_a_factory_raising_makes_its_contribution_unavailable(fake_dists, raised, reason):
    install(fake_dists, "t-hostile", FACTORY.format(raised=raised))
    install_good(fake_dists)
    host = PluginHost()
    registry = host.registry()
    with pytest.raises(PluginUnavailableError, match=f"make_codec\\(\\) raised {reason}"):
        registry.codec("tprov", "t_bad")
    with pytest.raises(PluginUnavailableError, match=f"make_serializer\\(\\) raised {reason}"):
        registry.serializer("tprov", "tool")
    assert_others_work(host, "t-hostile")


@pytest.mark.parametrize(("raised", "reason"), ESCAPES)
def test_a_contribution_whose_module_raises_at_import_is_unavailable(fake_dists, raised, reason):
    install(
        fake_dists,
        "t-hostile",
        """
@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_bad", "t_hostile_codec:Codec")]
""",
    )
    fake_dists.module(
        "t_hostile_codec", f"class Hostile(BaseException):\n    pass\n\nraise {raised}\n"
    )
    install_good(fake_dists)
    registry = PluginHost().registry()
    with pytest.raises(PluginUnavailableError, match=f"cannot be imported .*: {reason}"):
        registry.codec("tprov", "t_bad")


def test_keyboard_interrupt_from_plugin_code_propagates(fake_dists):
    install(fake_dists, "t-hostile", "raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        PluginHost().records()


@pytest.mark.parametrize("hook", ["affordance_register_codecs", "affordance_register_serializers"])
def test_keyboard_interrupt_from_a_hook_propagates(fake_dists, hook):
    install(fake_dists, "t-hostile", f"\n@hookimpl\ndef {hook}():\n    raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        PluginHost().registry()


# -- the commands report it ----------------------------------------------------------------------


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize(("raised", "reason"), ESCAPES)
def test_affordance_plugins_and_doctor_report_the_hostile_plugin(
    fake_dists, capsys, raised, reason
):
    install(fake_dists, "t-hostile", f"raise {raised}\n")
    install_good(fake_dists)
    code, out = run(capsys, "plugins", "--json")
    assert code == 0
    plugins = {p["name"]: p for p in json.loads(out)["plugins"]}
    assert plugins["t-hostile"]["status"] == "failed"
    assert plugins["t-hostile"]["reason"] == f"import failed: {reason}"
    assert plugins["t-good"]["status"] == "loaded"

    code, out = run(capsys, "doctor", "--json")
    assert code == 1
    findings = json.loads(out)["findings"]
    (finding,) = [f for f in findings if f["plugin"] == "t-hostile"]
    assert finding["kind"] == "plugin-failed"
    assert reason in finding["message"]

    code, out = run(capsys, "doctor")
    assert code == 1
    assert reason in out
