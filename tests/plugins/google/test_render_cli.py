"""`affordance render --provider google` shows the body the adapter sends: declarations from the
resolved serializer, in Gemini's JSON-Schema dialect."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_render_shows_google_declarations_in_gemini_s_dialect(tmp_path: Path) -> None:
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
            "google",
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    shown = json.loads(result.stdout)
    request = shown["request"]
    assert request["contents"] == [{"role": "user", "parts": [{"text": shown["text"]}]}]
    (tools,) = request["tools"]
    declarations = {d["name"]: d for d in tools["functionDeclarations"]}
    title = declarations["create_task"]["parametersJsonSchema"]["properties"]["title"]
    # length limits are outside Gemini's subset: stated in the description instead
    assert "maxLength" not in title
    assert "at most 80 characters" in title["description"]
