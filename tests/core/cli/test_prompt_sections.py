"""`affordance plugins --prompt` and `affordance doctor --prompt`: the sections of a prompt that
list their tools at render (an MCP server's) are asked for them and shown; one that cannot list
them is a problem for the doctor, and the other sections are still shown."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = """
from dataclasses import dataclass

from affordance import MarkdownSection, PromptTemplate
from affordance.prompt import Section
from affordance.tools import Tool, ToolResult


@dataclass(frozen=True)
class Noop:
    pass


class Remote(Section[None]):
    tools_listed_at_render = True

    def __init__(self, key, names, reachable=True):
        super().__init__(title=key.title(), key=key)
        self.names = names
        self.reachable = reachable

    def __repr__(self):
        return f"Remote(server={self.key}.example)"

    def tools(self):
        if not self.reachable:
            raise ConnectionError("connection refused")
        def handler(params):
            return ToolResult.ok("")

        return tuple(
            Tool[Noop, str](name=n, description="A remote tool.", handler=handler)
            for n in self.names
        )


prompt = PromptTemplate(
    ns="t",
    key="t",
    sections=[
        MarkdownSection(title="Task", template="Go."),
        Remote("clock", ["now", "convert"]),
        Remote("files", ["read"], reachable=False),
    ],
)
healthy = PromptTemplate(ns="t", key="h", sections=[Remote("clock", ["now"])])
"""


def affordance(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "remote_prompt.py").write_text(textwrap.dedent(MODULE))
    return subprocess.run(
        [sys.executable, "-m", "affordance", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"AFFORDANCE_PLUGIN_AUTOLOAD": "0", "PATH": "/usr/bin:/bin"},
    )


def test_plugins_lists_each_section_with_its_server_and_tools(tmp_path):
    result = affordance(tmp_path, "plugins", "--prompt", "remote_prompt:prompt")
    assert result.returncode == 0, result.stderr
    assert "Sections that list their tools at render (MCP servers):" in result.stdout
    assert "remote_prompt:prompt clock: Remote(server=clock.example): 2 tool(s): now, convert" in (
        result.stdout
    )
    assert "files: Remote(server=files.example): cannot list its tools: ConnectionError" in (
        result.stdout
    )


def test_plugins_json_carries_them(tmp_path):
    result = affordance(tmp_path, "plugins", "--json", "--prompt", "remote_prompt:prompt")
    sections = json.loads(result.stdout)["prompt_sections"]
    assert [(s["path"], s["tools"], s["error"]) for s in sections] == [
        ("clock", ["now", "convert"], None),
        ("files", [], "ConnectionError: connection refused"),
    ]


def test_doctor_reports_a_section_that_cannot_list_its_tools_as_a_problem(tmp_path):
    result = affordance(tmp_path, "doctor", "--json", "--prompt", "remote_prompt:prompt")
    assert result.returncode == 1
    findings = [
        f for f in json.loads(result.stdout)["findings"] if f["kind"] == "prompt-section-tools"
    ]
    assert [f["severity"] for f in findings] == ["info", "problem"]
    assert "cannot list its tools: ConnectionError: connection refused" in findings[1]["message"]


def test_doctor_is_healthy_when_every_section_lists_its_tools(tmp_path):
    result = affordance(tmp_path, "doctor", "--prompt", "remote_prompt:healthy")
    assert result.returncode == 0, result.stdout
    assert "info: [prompt-section-tools] remote_prompt:healthy clock:" in result.stdout


def test_a_target_that_names_no_prompt_is_one_line_and_exit_code_2(tmp_path):
    result = affordance(tmp_path, "doctor", "--prompt", "remote_prompt:nothing")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "remote_prompt has no attribute 'nothing'" in result.stderr
