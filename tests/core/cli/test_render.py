"""`affordance render MODULE:PROMPT`: a target that names no prompt is one line and exit code 2;
with `--provider`, the body shows the model `--model` names or a marked placeholder."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from affordance.cli.render import PLACEHOLDER_MODEL

MODULE = """
import json
from dataclasses import dataclass

from affordance.cli._demo_agent import Owner, TaskBoard, build_prompt


@dataclass(frozen=True)
class LookupParams:
    key: str


def rendered():
    return build_prompt(TaskBoard()).render(Owner("Ada"))


def needs_an_owner(owner):
    return build_prompt(TaskBoard()).render(owner)


def fails():
    return {}["missing"]
"""

RAISING = """
import json


def check():
    raise ValueError("boom")


check()
"""


def render(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "myprompt.py").write_text(textwrap.dedent(MODULE))
    (tmp_path / "raising.py").write_text(textwrap.dedent(RAISING))
    (tmp_path / "broken.py").write_text("def f(:\n")
    return subprocess.run(
        [sys.executable, "-m", "affordance", "render", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    return result.stderr


@pytest.mark.parametrize(
    ("target", "found"),
    [
        ("myprompt:LookupParams", "myprompt:LookupParams is the class LookupParams"),
        ("myprompt:needs_an_owner", "is the function needs_an_owner(owner), which takes arg"),
        ("myprompt:json", "myprompt:json is the module json"),
    ],
)
def test_a_target_that_is_not_a_prompt_says_what_was_found_and_what_is_expected(
    tmp_path, target, found
):
    err = one_line_error(render(tmp_path, target))

    assert found in err
    assert "expected a PromptTemplate, a RenderedPrompt, or a function of no arguments" in err
    assert "missing 1 required positional argument" not in err


def test_a_module_raising_at_import_names_the_error_and_the_line_it_came_from(tmp_path):
    err = one_line_error(render(tmp_path, "raising:PROMPT"))

    assert (
        err == "affordance render: importing raising raised ValueError: boom (line 6 of raising)\n"
    )


def test_a_module_that_does_not_parse_names_the_file_and_line(tmp_path):
    err = one_line_error(render(tmp_path, "broken:PROMPT"))

    assert "importing broken raised SyntaxError: invalid syntax (broken.py, line 1)" in err


def test_a_prompt_function_raising_names_the_error_and_the_line_it_came_from(tmp_path):
    err = one_line_error(render(tmp_path, "myprompt:fails"))

    assert err.endswith("calling myprompt:fails raised KeyError: 'missing' (line 22 of myprompt)\n")


def test_a_missing_module_is_a_one_line_error(tmp_path):
    err = one_line_error(render(tmp_path, "no_such_module:PROMPT"))

    assert (
        err == "affordance render: cannot import no_such_module: No module named 'no_such_module'\n"
    )


def test_the_provider_request_names_a_marked_placeholder_model_unless_one_is_given(tmp_path):
    pytest.importorskip("affordance_openai", reason="needs the OpenAI plugin and its SDK")
    base = ("myprompt:rendered", "--provider", "openai")

    placeholder = render(tmp_path, *base, "--json")
    chosen = render(tmp_path, *base, "--json", "--model", "gpt-test")
    shown = render(tmp_path, *base)

    assert json.loads(placeholder.stdout)["request"]["model"] == PLACEHOLDER_MODEL == "<model>"
    assert json.loads(chosen.stdout)["request"]["model"] == "gpt-test"
    assert "--- request body (openai, model <model>: a placeholder, set it with --model) ---" in (
        shown.stdout
    )


def test_a_model_without_a_provider_is_a_usage_error(tmp_path):
    err = one_line_error(render(tmp_path, "myprompt:rendered", "--model", "gpt-test"))

    assert "--model names the model of a --provider request" in err
