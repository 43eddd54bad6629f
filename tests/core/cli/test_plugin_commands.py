"""Commands from plugins (the ``affordance.commands`` entry points): listed from metadata alone,
imported only when chosen, never shadowing a core command, and a broken one is one line on
stderr with exit code 2.

The distributions are real ``.dist-info`` directories on ``sys.path``, read by the real
``importlib.metadata``.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from affordance.cli import PluginCommand, main, plugin_commands

GREET = """
import argparse

HELP = "greet someone by name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name")
    parser.add_argument("--shout", action="store_true")


def run(args: argparse.Namespace) -> int:
    text = f"hello {args.name}"
    print(text.upper() if args.shout else text)
    return 3
"""


class Dists:
    """Writes distributions declaring commands into a directory on ``sys.path``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def add(self, dist: str, commands: dict[str, str], modules: dict[str, str]) -> None:
        info = self.root / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        lines = ["[affordance.commands]", *(f"{k} = {v}" for k, v in commands.items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for name, source in modules.items():
            (self.root / f"{name}.py").write_text(textwrap.dedent(source))
        importlib.invalidate_caches()


@pytest.fixture
def dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Dists]:
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps help at hyphens otherwise
    before = set(sys.modules)
    yield Dists(tmp_path)
    for name in set(sys.modules) - before:
        if name.startswith("t_cmd_"):
            del sys.modules[name]


def help_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_help_lists_a_plugin_command_by_its_distribution_without_importing_it(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-greet", {"greet": "t_cmd_greet"}, {"t_cmd_greet": GREET})

    listing = help_text(capsys)

    assert "greet" in listing
    assert "(from affordance-greet)" in listing
    assert "t_cmd_greet" not in sys.modules


def test_listing_works_when_a_plugin_command_cannot_even_be_imported(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-boom", {"boom": "t_cmd_boom"}, {"t_cmd_boom": "raise RuntimeError()"})

    assert "(from affordance-boom)" in help_text(capsys)


def test_the_chosen_plugin_command_runs_with_its_own_arguments(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-greet", {"greet": "t_cmd_greet"}, {"t_cmd_greet": GREET})

    code = main(["greet", "Ada", "--shout"])

    assert code == 3
    assert capsys.readouterr().out == "HELLO ADA\n"


def test_the_command_help_is_the_modules_help_line_and_its_distribution(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-greet", {"greet": "t_cmd_greet"}, {"t_cmd_greet": GREET})

    usage = help_text(capsys, "greet")

    assert "greet someone by name (from affordance-greet)" in usage
    assert "--shout" in usage


def test_only_the_chosen_plugin_command_is_imported(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-greet", {"greet": "t_cmd_greet"}, {"t_cmd_greet": GREET})
    dists.add("affordance-boom", {"boom": "t_cmd_boom"}, {"t_cmd_boom": "raise RuntimeError()"})

    assert main(["greet", "Ada"]) == 3
    assert "t_cmd_boom" not in sys.modules


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        ("raise RuntimeError('no config file')", "RuntimeError: no config file"),
        (
            "import t_cmd_absent",
            "ModuleNotFoundError: No module named 't_cmd_absent'",
        ),
        ("HELP = 'half a command'\ndef add_arguments(parser): pass\n", "AttributeError"),
        (
            "HELP = 'x'\ndef run(args): return 0\ndef add_arguments(p): p.add_argument('-h')\n",
            "ArgumentError: argument -h: conflicting option string: -h",
        ),
    ],
    ids=["raises", "missing-dependency", "no-run", "bad-arguments"],
)
def test_a_command_that_cannot_load_is_one_line_and_exit_code_2(
    dists: Dists, capsys: pytest.CaptureFixture[str], source: str, detail: str
) -> None:
    dists.add("affordance-broken", {"broken": "t_cmd_broken"}, {"t_cmd_broken": source})

    code = main(["broken"])

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.startswith(
        "affordance broken: cannot load the command from affordance-broken (t_cmd_broken): "
    )
    assert detail in captured.err
    assert captured.err.count("\n") == 1
    assert "Traceback" not in captured.err


def test_a_plugin_command_never_shadows_a_core_command(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-rogue", {"doctor": "t_cmd_rogue"}, {"t_cmd_rogue": GREET})

    listing = help_text(capsys)
    main(["doctor", "--json"])

    assert "Not offered, as core has a command of that name: 'doctor' from affordance-rogue" in (
        listing
    )
    assert '"findings"' in capsys.readouterr().out  # core's doctor ran
    assert "t_cmd_rogue" not in sys.modules


def test_a_command_two_distributions_declare_is_offered_by_neither(
    dists: Dists, capsys: pytest.CaptureFixture[str]
) -> None:
    dists.add("affordance-one", {"greet": "t_cmd_one"}, {"t_cmd_one": GREET})
    dists.add("affordance-two", {"greet": "t_cmd_two"}, {"t_cmd_two": GREET})

    listing = help_text(capsys)
    code = main(["greet", "Ada"])

    reason = "declared by affordance-one and affordance-two; uninstall one"
    assert f"(not offered: {reason})" in listing
    assert code == 2
    assert capsys.readouterr().err == f"affordance greet: not offered: {reason}\n"
    assert "t_cmd_one" not in sys.modules
    assert "t_cmd_two" not in sys.modules


def test_plugin_commands_reads_every_declaration_with_why_one_is_refused(dists: Dists) -> None:
    dists.add("affordance-greet", {"greet": "t_cmd_greet"}, {})
    dists.add("affordance-rogue", {"render": "t_cmd_rogue"}, {})

    found = {c.name: c for c in plugin_commands() if c.module.startswith("t_cmd_")}

    assert found["greet"] == PluginCommand("greet", "t_cmd_greet", "affordance-greet")
    assert found["render"].refused == "a core command has that name"
