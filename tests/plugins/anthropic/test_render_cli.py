"""`affordance render --provider anthropic` shows the request the adapter sends: declarations from
the resolved serializer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_render_shows_anthropic_declarations_and_their_strictness(tmp_path: Path) -> None:
    (tmp_path / "myprompt.py").write_text(
        "from affordance.cli._demo_agent import Owner, TaskBoard, build_prompt\n"
        "def rendered():\n"
        "    return build_prompt(TaskBoard()).render(Owner('Ada'))\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "affordance",
            "render",
            "myprompt:rendered",
            "--provider",
            "anthropic",
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    shown = json.loads(result.stdout)
    request = shown["request"]
    assert request["messages"] == [{"role": "user", "content": shown["text"]}]
    assert request["max_tokens"] == 8192
    tools = {tool["name"]: tool for tool in request["tools"]}
    assert tools["list_tasks"]["strict"] is True
    # a length limit is not in the strict subset: the model reads it in the description
    title = tools["create_task"]["input_schema"]["properties"]["title"]
    assert "maxLength" not in title
    assert '"maxLength": 80' in title["description"]
