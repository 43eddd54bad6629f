"""The package's front door: cheap import, consistent exports, the README example runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import affordance
import affordance.prompt

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "openai", "anthropic", "google.genai", "asyncio", "pluggy", "logging")


def modules_after(code: str) -> set[str]:
    output = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(output.split())


def test_importing_affordance_loads_no_sdk_no_pydantic_no_runtime():
    loaded = modules_after("import affordance")
    assert not [m for m in HEAVY if m in loaded]
    assert not [m for m in loaded if m.startswith(("affordance.runtime", "affordance.plugins"))]


def test_the_prompt_api_loads_no_sdk_no_asyncio_no_plugins():
    loaded = modules_after("from affordance.prompt import MarkdownSection, Prompt, Tool")
    assert not [m for m in HEAVY if m in loaded]


def test_every_public_name_resolves_and_both_modules_agree():
    for name in affordance.__all__:
        assert getattr(affordance, name) is not None
    for name in affordance.prompt.__all__:
        assert getattr(affordance.prompt, name) is getattr(affordance, name)
    assert sorted(dir(affordance)) == sorted(affordance.__all__)


def test_subpackages_are_attributes_imported_only_when_first_used():
    loaded = modules_after(
        "import sys, affordance\n"
        "assert 'affordance.plugins' not in sys.modules\n"
        "assert callable(affordance.plugins.load_adapter)\n"
        "import affordance.plugins\n"
        "assert affordance.plugins is sys.modules['affordance.plugins']\n"
        "assert affordance.errors.ToolError is affordance.ToolError"
    )
    assert "affordance.plugins" in loaded
    assert not [m for m in ("openai", "anthropic", "google.genai") if m in loaded]
    assert "plugins" not in affordance.__all__  # a namespace, not a name: `import *` skips it


def test_unknown_attributes_raise_attribute_error():
    with pytest.raises(AttributeError, match="NotAThing"):
        affordance.NotAThing  # type: ignore[attr-defined]  # noqa: B018


def test_the_readme_example_runs():
    readme = (ROOT / "README.md").read_text()
    example = re.findall(r"```python\n(.*?)```", readme, re.S)[0]  # the offline one
    result = subprocess.run(
        [sys.executable, "-c", example], check=True, capture_output=True, text=True
    )
    assert "Entity 42 is documented" in result.stdout


def test_the_demo_runs_offline_and_shows_every_feature():
    result = subprocess.run(
        [sys.executable, "-m", "affordance", "demo"], check=True, capture_output=True, text=True
    )
    out = result.stdout
    assert "open_sections: ok" in out
    assert "create_task: FAILED - Invalid arguments" in out
    assert "delete_task needs confirmation" in out
    assert "delete_task: ok - Deleted task #3." in out
    assert "tasks now: Renew passport, Water the plants" in out


def test_render_command_prints_text_and_tool_schemas(tmp_path):
    (tmp_path / "myprompt.py").write_text(
        "from affordance.cli._demo_agent import Owner, TaskBoard, build_prompt\n"
        "def rendered():\n"
        "    return build_prompt(TaskBoard()).render(Owner('Ada'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "affordance", "render", "myprompt:rendered", "--json"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    import json

    document = json.loads(result.stdout)
    assert document["text"].startswith("## 1 Role\nYou manage the task list of Ada.")
    names = [tool["name"] for tool in document["tools"]]
    assert names == ["create_task", "list_tasks", "delete_task", "open_sections"]
    assert document["tools"][0]["parameters"]["properties"]["priority"]["enum"] == [
        "low",
        "medium",
        "high",
    ]


def test_render_command_reports_a_bad_target():
    result = subprocess.run(
        [sys.executable, "-m", "affordance", "render", "no_such_module:x"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "no_such_module" in result.stderr
