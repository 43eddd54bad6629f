"""A plugin whose import hangs is failed after the import limit; nothing waits for it forever.

The hanging plugins are real distributions on ``sys.path`` (``fake_dists``). In this process
they wait on the ``gate`` fixture's event, released when the test ends so no thread outlives
it; the wait gives up after ``GUARD`` seconds, so a loader that waits for the import fails these
tests instead of hanging them. The ``affordance doctor`` test runs a subprocess whose plugin
sleeps for an hour, under a subprocess timeout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Iterator

import pytest

import affordance.plugins
from affordance.cli.report import report
from affordance.plugins import (
    ContributionKey,
    PluginConfigError,
    PluginHost,
    PluginLoadError,
    PluginSettings,
    PluginStatus,
    UnknownProviderError,
    configure,
    load_adapter,
)

GUARD = 20.0
"""Seconds a hanging plugin waits at most (a loader without a limit waits this long, then the
plugin raises and the test fails)."""

HANGS = f"""
import t_gate
from affordance.plugins import ProviderSpec, hookimpl

if not t_gate.release.wait({GUARD}):
    raise RuntimeError("the gate was never opened")

@hookimpl
def affordance_register_providers():
    return [ProviderSpec("thang", "t_hang_plugin:Adapter")]
"""

GOOD = """
from affordance.plugins import CodecSpec, hookimpl

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_good", "t_good_plugin:Codec")]
"""


@pytest.fixture
def gate(fake_dists, monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """Module ``t_gate``: hanging plugins wait on its ``release`` event, set when the test ends;
    then every import thread must finish."""
    module = types.ModuleType("t_gate")
    module.release = threading.Event()  # type: ignore[attr-defined]
    module.interrupts = 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "t_gate", module)
    yield module
    module.release.set()  # type: ignore[attr-defined]
    for thread in threading.enumerate():
        if thread.name.startswith("affordance-plugin-import:"):
            thread.join(GUARD)
    assert not [t for t in threading.enumerate() if t.name.startswith("affordance-plugin-import")]


def install(fake_dists, name: str, source: str) -> None:
    module = f"{name.replace('-', '_')}_plugin"
    fake_dists.dist(f"affordance-{name}", entry_points={name: module}, modules={module: source})


def install_hung_and_good(fake_dists) -> None:
    install(fake_dists, "t-hang", HANGS)
    install(fake_dists, "t-good", GOOD)


def row(host: PluginHost, name: str):
    return next(r for r in host.records() if r.name == name)


def test_a_plugin_whose_import_hangs_is_failed_timed_out_and_the_others_load(
    fake_dists, gate, plugin_env
):
    install_hung_and_good(fake_dists)
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "0.5")
    host = PluginHost()
    registry = host.registry()
    hung = row(host, "t-hang")
    assert hung.status is PluginStatus.FAILED
    assert hung.reason == "import timed out after 0.5s"
    assert not hung.contributions
    assert row(host, "t-good").status is PluginStatus.LOADED
    assert registry.candidates(ContributionKey.codec("tprov", "t_good"))
    baseline = PluginHost(disable=["t-hang"]).registry().provider_names()
    assert registry.provider_names() == baseline  # e.g. "openai" when it is installed


def test_a_hung_module_is_not_imported_again_while_its_import_runs(fake_dists, gate, plugin_env):
    install_hung_and_good(fake_dists)
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "0.5")
    assert row(PluginHost(), "t-hang").reason == "import timed out after 0.5s"
    again = PluginHost()
    hung = row(again, "t-hang")
    assert hung.status is PluginStatus.FAILED
    assert hung.reason == (
        "import timed out after 0.5s (an import of t_hang_plugin started earlier in this "
        "process is still running; it is not started again)"
    )
    assert row(again, "t-good").status is PluginStatus.LOADED


def test_a_hung_import_that_ends_later_is_loaded_by_the_next_host(fake_dists, gate, plugin_env):
    install_hung_and_good(fake_dists)
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "0.5")
    assert row(PluginHost(), "t-hang").reason == "import timed out after 0.5s"
    gate.release.set()
    for thread in threading.enumerate():
        if thread.name == "affordance-plugin-import:t-hang":
            thread.join(GUARD)
    host = PluginHost()
    assert row(host, "t-hang").status is PluginStatus.LOADED
    assert "thang" in host.registry().provider_names()


@pytest.mark.usefixtures("fresh_default_host")
def test_load_adapter_of_a_provider_from_the_hung_plugin_names_it_and_the_timeout(
    fake_dists, gate, plugin_env
):
    install_hung_and_good(fake_dists)
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "0.5")
    with pytest.raises(UnknownProviderError) as info:
        load_adapter("thang", model="m")
    message = str(info.value)
    assert "no provider named 'thang'." in message
    assert (
        "Plugins not loaded: 't-hang' (affordance-t-hang 1.0) failed: import timed out after "
        "0.5s." in message
    )


def test_strict_mode_raises_for_a_hung_plugin(fake_dists, gate):
    install_hung_and_good(fake_dists)
    host = PluginHost(import_timeout=0.5, strict=True)
    with pytest.raises(PluginLoadError, match=r"'t-hang' .* failed: import timed out after 0\.5s"):
        host.registry()


def test_a_plugin_importing_within_the_limit_is_loaded(fake_dists):
    slow_source = "import time\ntime.sleep(0.3)\n" + GOOD.replace("t_good", "t_slow")
    install(fake_dists, "t-slow", slow_source)
    host = PluginHost(import_timeout=5)
    slow = row(host, "t-slow")
    assert (slow.status, slow.reason) == (PluginStatus.LOADED, None)
    assert [c.key.dotted for c in slow.contributions] == ["tprov.t_slow"]


def test_a_plugin_asking_for_the_registry_at_import_is_failed_at_once(fake_dists, plugin_env):
    install(fake_dists, "t-eager", "import affordance.plugins\naffordance.plugins.registry()\n")
    plugin_env.setattr(affordance.plugins, "_default_host", PluginHost(load=["t-eager"]))
    eager = row(affordance.plugins.default_host(), "t-eager")
    assert eager.status is PluginStatus.FAILED
    assert eager.reason is not None
    assert eager.reason.startswith("import failed: PluginError: the plugin registry was asked")
    assert "while it is being built" in eager.reason


SELF_BUILDING = (
    GOOD.replace("t_good", "t_selfish")
    + """
from affordance.plugins import PluginHost

HOST = PluginHost(load=["t-selfish"])
REGISTRY = HOST.registry()
"""
)


def test_a_plugin_module_building_the_registry_as_it_is_imported_still_loads(
    fake_dists, plugin_env
):
    """A worker would wait for the module this thread is importing: it is imported here."""
    install(fake_dists, "t-selfish", SELF_BUILDING)
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "2")
    import t_selfish_plugin  # type: ignore[import-not-found]

    selfish = row(t_selfish_plugin.HOST, "t-selfish")
    assert (selfish.status, selfish.reason) == (PluginStatus.LOADED, None)
    assert [c.key.dotted for c in selfish.contributions] == ["tprov.t_selfish"]


KEYBOARD_INTERRUPT_ONCE = """
import t_gate

t_gate.interrupts += 1
if t_gate.interrupts == 1:
    raise KeyboardInterrupt
"""


def test_after_a_keyboard_interrupt_the_next_use_loads_the_plugins_again(fake_dists, gate):
    install(fake_dists, "t-interrupt", KEYBOARD_INTERRUPT_ONCE)
    install(fake_dists, "t-good", GOOD)
    host = PluginHost()
    with pytest.raises(KeyboardInterrupt):
        host.records()
    assert row(host, "t-interrupt").status is PluginStatus.LOADED
    assert row(host, "t-good").status is PluginStatus.LOADED
    assert host.registry().candidates(ContributionKey.codec("tprov", "t_good"))


# -- the setting ---------------------------------------------------------------------------------


def test_the_import_limit_is_10_seconds_by_default(plugin_env):
    assert PluginSettings().import_timeout == 10
    assert PluginSettings.from_environ({}).import_timeout == 10
    assert PluginHost().settings.import_timeout == 10


def test_the_environment_sets_the_import_limit_and_the_api_overrides_it(plugin_env):
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", "2.5")
    assert PluginHost().settings.import_timeout == 2.5
    assert PluginHost(import_timeout=4).settings.import_timeout == 4
    plugin_env.setattr(affordance.plugins, "_default_host", None)
    assert configure(import_timeout=0.75).settings.import_timeout == 0.75
    assert report(PluginHost())["settings"]["import_timeout"] == 2.5


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "nan", "inf"])
def test_a_malformed_import_limit_is_a_config_error(plugin_env, raw):
    plugin_env.setenv("AFFORDANCE_PLUGIN_IMPORT_TIMEOUT", raw)
    with pytest.raises(
        PluginConfigError, match=r"AFFORDANCE_PLUGIN_IMPORT_TIMEOUT=.*seconds above 0"
    ):
        PluginHost()


@pytest.mark.parametrize("value", [0, -2.0, True, float("nan"), "1"])
def test_a_malformed_import_limit_in_code_is_a_config_error(value):
    with pytest.raises(PluginConfigError, match=r"import_timeout=.*seconds"):
        PluginHost(import_timeout=value)


# -- in a fresh interpreter ----------------------------------------------------------------------

SLEEPS = """
import time
print("importing", flush=True)
time.sleep(3600)
"""


def child_env(fake_dists, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFORDANCE_")}
    paths = [str(fake_dists.root), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return {**env, **settings}


def test_doctor_reports_a_hung_plugin_within_the_limit_and_exits(fake_dists):
    install(fake_dists, "t-sleepy", SLEEPS)
    install(fake_dists, "t-good", GOOD)
    env = child_env(fake_dists, AFFORDANCE_PLUGIN_IMPORT_TIMEOUT="0.5")
    try:
        result = subprocess.run(
            [sys.executable, "-m", "affordance", "doctor", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("affordance doctor still waits for the hung plugin after 60 s")
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout[result.stdout.index("{") :])["findings"]
    (finding,) = [f for f in findings if f["plugin"] == "t-sleepy"]
    assert finding["kind"] == "plugin-failed"
    assert finding["message"] == (
        "plugin 't-sleepy' (affordance-t-sleepy 1.0) failed: import timed out after 0.5s"
    )
    assert not [f for f in findings if f["plugin"] == "t-good"]


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_ctrl_c_while_a_hung_import_is_waited_for_raises_keyboard_interrupt(fake_dists):
    install(fake_dists, "t-sleepy", SLEEPS)
    code = "import affordance.plugins as p\np.PluginHost(load=['t-sleepy']).registry()\n"
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(fake_dists, AFFORDANCE_PLUGIN_IMPORT_TIMEOUT="600"),
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "importing\n"
        time.sleep(0.2)  # the caller is waiting for the import by now
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode != 0
    assert err.rstrip().endswith("KeyboardInterrupt")
