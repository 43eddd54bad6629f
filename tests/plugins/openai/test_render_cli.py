"""`affordance render --provider openai` shows the request the adapter sends: declarations from
the resolved serializer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_render_shows_openai_declarations_and_their_strictness(tmp_path: Path) -> None:
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
            "openai",
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    request = json.loads(result.stdout)["request"]
    assert request["input"] == [{"role": "user", "content": json.loads(result.stdout)["text"]}]
    tools = {tool["name"]: tool for tool in request["tools"]}
    assert tools["list_tasks"]["type"] == "function"
    assert tools["list_tasks"]["strict"] is True
    # length limits cannot be expressed in OpenAI's strict mode: sent non-strict, unchanged
    assert tools["create_task"]["strict"] is False
    assert tools["create_task"]["parameters"]["properties"]["title"]["maxLength"] == 80
