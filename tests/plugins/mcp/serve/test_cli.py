"""``affordance mcp serve MODULE:PROMPT`` (``affordance_mcp.cli``): offered by the plugin's
``affordance.commands`` entry point, and a target that names no prompt template is one line on
stderr and exit code 2. Serving over each transport is ``test_serve.py``'s."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from affordance.cli import main, plugin_commands, prompt_of

TARGETS = """
from mcp_serve_board import build_prompt

rendered = build_prompt().render()


def fails():
    raise ValueError("no board today")


def renders():
    return rendered
"""


@pytest.fixture
def targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mcp_serve_targets.py").write_text(textwrap.dedent(TARGETS))
    (tmp_path / "mcp_serve_raising.py").write_text("raise ValueError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_the_plugin_offers_the_mcp_command() -> None:
    (command,) = [c for c in plugin_commands() if c.name == "mcp"]

    assert (command.module, command.distribution, command.refused) == (
        "affordance_mcp.cli",
        "affordance-mcp",
        None,
    )


def test_a_template_or_a_function_returning_one_is_a_target() -> None:
    """Loaded as core loads `affordance render` targets."""
    assert prompt_of("mcp_serve_board:prompt").name == "task-board"
    assert prompt_of("mcp_serve_board:build_prompt").name == "task-board"


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("mcp_serve_board", "expected MODULE:PROMPT, got 'mcp_serve_board'"),
        ("mcp_serve_absent:prompt", "cannot import mcp_serve_absent: No module named"),
        ("mcp_serve_board:missing", "mcp_serve_board has no attribute 'missing'"),
        ("mcp_serve_board:Board", "mcp_serve_board:Board is the class Board; expected a Prompt"),
        ("mcp_serve_targets:rendered", "is a rendered prompt; expected its PromptTemplate"),
        ("mcp_serve_targets:renders", "is a rendered prompt; expected its PromptTemplate"),
        ("mcp_serve_targets:fails", "calling mcp_serve_targets:fails raised ValueError: no bo"),
        ("mcp_serve_raising:prompt", "importing mcp_serve_raising raised ValueError: boom"),
    ],
)
def test_a_target_that_names_no_prompt_template_is_one_line_and_exit_code_2(
    targets: None, capsys: pytest.CaptureFixture[str], target: str, error: str
) -> None:
    code = main(["mcp", "serve", target])

    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.startswith("affordance mcp serve: ")
    assert error in captured.err
    assert captured.err.count("\n") == 1


def test_the_command_needs_an_action(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["mcp"])

    assert exit_info.value.code == 2
    assert "the following arguments are required: ACTION" in capsys.readouterr().err
