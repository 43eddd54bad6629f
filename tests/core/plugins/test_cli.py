"""``affordance plugins [--json]`` and ``affordance doctor`` over fake distributions."""

from __future__ import annotations

import json

import pytest

from affordance.cli import main

CODECS = """
from affordance.plugins import CodecSpec, HostedToolKindSpec, hookimpl

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("tprov", "t_kind", "{module}:Codec"{extra})]

@hookimpl
def affordance_register_hosted_tool_kinds():
    return [HostedToolKindSpec("t_kind", "{module}:Config", "{module}:Result")]
"""

PROVIDER = """
from affordance.plugins import ProviderSpec, hookimpl

@hookimpl
def affordance_register_providers():
    return [ProviderSpec("tprov", "t_adapter:Adapter", sdk="affordance-test-absent-sdk>=1")]
"""


@pytest.fixture
def installed(fake_dists, plugin_env):
    """Our test plugins only (the allowlist keeps other installed plugins out)."""

    def install(*plugins, allow=None):
        names = []
        for name, source, *rest in plugins:
            requires = rest[0] if rest else ("affordance>=0.1,<1",)
            module = f"{name.replace('-', '_')}_plugin"
            fake_dists.dist(
                f"affordance-{name}",
                entry_points={name: module},
                modules={module: source},
                requires=requires,
            )
            names.append(name)
        plugin_env.setenv("AFFORDANCE_LOAD_PLUGINS", ",".join(allow or names))

    return install


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, out


def test_plugins_json_has_the_documented_shape(installed, capsys):
    installed(("t-search", CODECS.format(module="t_search_plugin", extra="")))
    code, out = run(capsys, "plugins", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"schema", "core", "settings", "plugins", "resolutions", "conflicts"}
    assert data["schema"] == 2
    assert data["core"]["plugin_api"] == 1
    assert data["settings"] == {
        "autoload": True,
        "strict": False,
        "disable": [],
        "load": ["t-search"],
        "pins": {},
        "import_timeout": 10.0,
    }
    (plugin,) = [p for p in data["plugins"] if p["name"] == "t-search"]
    assert plugin == {
        "name": "t-search",
        "distribution": "affordance-t-search",
        "version": "1.0",
        "source": "entry_point",
        "value": "t_search_plugin",
        "status": "loaded",
        "reason": None,
        "hooks": ["affordance_register_codecs", "affordance_register_hosted_tool_kinds"],
        "notes": [],
        "requires": ["affordance>=0.1,<1"],
        "contributions": [
            {
                "category": "hosted_tool_kind",
                "key": "t_kind",
                "target": "t_search_plugin:Config",
                "priority": 0,
                "sdk": None,
                "available": True,
                "unavailable_reason": None,
                "selected": True,
            },
            {
                "category": "codec",
                "key": "tprov.t_kind",
                "target": "t_search_plugin:Codec",
                "priority": 0,
                "sdk": None,
                "available": True,
                "unavailable_reason": None,
                "selected": True,
            },
        ],
    }


def test_plugins_lists_a_broken_plugin_and_a_conflict(installed, capsys):
    installed(
        ("t-broken", "import affordance_test_absent_module\n"),
        ("t-one", CODECS.format(module="t_one_plugin", extra="")),
        ("t-two", CODECS.format(module="t_two_plugin", extra="")),
    )
    code, out = run(capsys, "plugins", "--json")
    assert code == 0
    data = json.loads(out)
    statuses = {p["name"]: (p["status"], p["reason"]) for p in data["plugins"]}
    assert statuses["t-broken"] == (
        "failed",
        "import failed: ModuleNotFoundError: No module named 'affordance_test_absent_module'",
    )
    assert [(c["kind"], c["key"]) for c in data["conflicts"]] == [
        ("tie", "tprov.t_kind"),
        ("tie", "t_kind"),
    ]
    assert [c["distribution"] for c in data["conflicts"][0]["candidates"]] == [
        "affordance-t-one",
        "affordance-t-two",
    ]
    code, out = run(capsys, "plugins")
    assert code == 0
    (row,) = [line for line in out.splitlines() if line.startswith("t-broken ")]
    assert row.split() == ["t-broken", "affordance-t-broken", "1.0", "failed"]
    assert "  reason: import failed: ModuleNotFoundError" in out
    assert "codec tprov.t_kind -> t_one_plugin:Codec  [CONFLICT]" in out
    assert "Conflicts (raised when the key is first used):" in out


def test_plugins_works_in_strict_mode_with_a_broken_plugin(installed, plugin_env, capsys):
    installed(("t-broken", "raise RuntimeError('boom')\n"))
    plugin_env.setenv("AFFORDANCE_STRICT_PLUGINS", "1")
    code, out = run(capsys, "plugins")
    assert code == 0
    assert "import failed: RuntimeError: boom" in out


def test_plugins_text_marks_shadowed_and_unavailable(installed, capsys):
    installed(
        ("t-one", CODECS.format(module="t_one_plugin", extra="")),
        ("t-two", CODECS.format(module="t_two_plugin", extra=", priority=3")),
        ("t-prov", PROVIDER),
    )
    code, out = run(capsys, "plugins")
    assert code == 0
    assert "codec tprov.t_kind -> t_one_plugin:Codec  [shadowed]" in out
    assert "codec tprov.t_kind -> t_two_plugin:Codec  [priority 3]" in out
    assert "unavailable: affordance-test-absent-sdk is not installed" in out


def test_a_malformed_setting_exits_2(plugin_env, capsys):
    plugin_env.setenv("AFFORDANCE_PIN", "nonsense")
    assert main(["plugins"]) == 2
    assert "AFFORDANCE_PIN" in capsys.readouterr().err
    assert main(["doctor"]) == 2


def test_doctor_is_healthy_with_good_plugins(installed, capsys):
    installed(("t-one", CODECS.format(module="t_one_plugin", extra="")))
    code, out = run(capsys, "doctor")
    assert code == 0
    assert out.strip().endswith("healthy (0 problem(s), 0 warning(s))")


def test_doctor_reports_every_kind_of_problem(installed, plugin_env, capsys):
    installed(
        ("t-broken", "raise RuntimeError('boom')\n"),
        ("t-one", CODECS.format(module="t_one_plugin", extra="")),
        ("t-two", CODECS.format(module="t_two_plugin", extra="")),
        ("t-prov", PROVIDER),
        ("t-skew", "", ("affordance>=5,<6",)),
        ("t-bare", "", ()),
        allow=["t-broken", "t-one", "t-two", "t-prov", "t-skew", "t-bare", "t-absent"],
    )
    plugin_env.setenv("AFFORDANCE_PIN", "nobody.t_kind=affordance-t-one")
    code, out = run(capsys, "doctor", "--json")
    assert code == 1
    data = json.loads(out)
    assert data["healthy"] is False
    kinds = {(f["kind"], f["severity"], f["plugin"]) for f in data["findings"]}
    assert kinds == {
        ("plugin-failed", "problem", "t-broken"),
        ("conflict", "problem", None),
        ("unavailable", "problem", "t-prov"),
        ("version-skew", "problem", "t-skew"),
        ("no-core-requirement", "warning", "t-bare"),
        ("unused-pin", "warning", None),
        ("not-installed", "warning", None),
    }
    skew = next(f for f in data["findings"] if f["kind"] == "version-skew")
    assert "affordance-t-skew 1.0 requires affordance>=5,<6, but affordance" in skew["message"]
    code, out = run(capsys, "doctor")
    assert code == 1
    assert "problem: [plugin-failed] plugin 't-broken' (affordance-t-broken 1.0) failed" in out
    assert "problems found (" in out


def test_python_dash_m_affordance_runs_the_cli(installed):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "affordance", "plugins", "--json"],
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "AFFORDANCE_PLUGIN_AUTOLOAD": "0"},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["settings"]["autoload"] is False


WEB_SEARCH_CODEC = """
from affordance.plugins import CodecSpec, hookimpl

class Codec:
    kind = "web_search"

    def serialize(self, tool):
        return {{"type": "web_search", "by": "{name}"}}

    def parse_output(self, items, tool):
        return None

@hookimpl
def affordance_register_codecs():
    return [CodecSpec("openai", "web_search", "{module}:Codec")]
"""

HOSTED_PROMPT = """
from dataclasses import dataclass
from affordance import HostedTool, MarkdownSection, PromptTemplate

@dataclass(frozen=True)
class Config:
    pass

PROMPT = PromptTemplate(name="search", sections=[MarkdownSection(
    title="Task", template="Find it.",
    hosted_tools=[HostedTool("web_search", "search", "Search the web.", Config())])])
"""


@pytest.mark.usefixtures("fresh_default_host")
def test_render_shows_a_hosted_tool_as_its_codec_declares_it(installed, fake_dists, capsys):
    pytest.importorskip("affordance_openai", reason="needs the OpenAI plugin and its SDK")
    installed(
        ("search-a", WEB_SEARCH_CODEC.format(name="a", module="search_a_plugin")),
        allow=["openai", "search-a"],
    )
    fake_dists.module("hosted_prompt", HOSTED_PROMPT)

    code = main(["render", "hosted_prompt:PROMPT", "--provider", "openai", "--json"])

    assert code == 0
    assert json.loads(capsys.readouterr().out)["request"]["tools"] == [
        {"type": "web_search", "by": "a"}
    ]


@pytest.mark.usefixtures("fresh_default_host")
def test_render_exits_with_the_conflict_error_evaluate_would_raise(installed, fake_dists, capsys):
    pytest.importorskip("affordance_openai", reason="needs the OpenAI plugin and its SDK")
    installed(
        ("search-a", WEB_SEARCH_CODEC.format(name="a", module="search_a_plugin")),
        ("search-b", WEB_SEARCH_CODEC.format(name="b", module="search_b_plugin")),
        allow=["openai", "search-a", "search-b"],
    )
    fake_dists.module("hosted_prompt", HOSTED_PROMPT)

    code = main(["render", "hosted_prompt:PROMPT", "--provider", "openai"])

    err = capsys.readouterr().err
    assert code == 1
    assert "codec openai.web_search is contributed by affordance-search-a" in err
    assert 'AFFORDANCE_PIN="openai.web_search=' in err


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_such_module_here:PROMPT", "No module named 'no_such_module_here'"),
        ("json:NO_SUCH_PROMPT", "json has no attribute 'NO_SUCH_PROMPT'"),
        ("json", "expected MODULE:PROMPT, got 'json'"),
        ("json:JSONDecoder", "json:JSONDecoder is the class JSONDecoder; expected a Prompt"),
    ],
)
def test_render_reports_a_bad_target_in_one_line(capsys, target, message):
    code = main(["render", target])

    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert message in err
