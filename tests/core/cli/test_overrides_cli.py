"""``affordance overrides seed|list|check|diff``: the workflow of a team tuning a prompt's texts
in files — seed, edit, check before deploying — and a stale override caught by ``check``
(exit 1) once the code's text moves on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = """
import os
from dataclasses import dataclass, field

from affordance import MarkdownSection, PromptTemplate, Tool


@dataclass(frozen=True)
class LookupParams:
    entity_id: str = field(metadata={"description": "Global identifier to fetch"})


LOOKUP = Tool[LookupParams, str](name="lookup", description="Fetch an entity.")
FROZEN = Tool[LookupParams, str](
    name="frozen", description="Stable.", accepts_overrides=False
)

prompt = PromptTemplate(
    ns="support",
    key="triage",
    sections=[
        MarkdownSection(
            title="Intro", template=os.environ.get("INTRO", "Help the user."), tools=[LOOKUP]
        ),
        MarkdownSection(
            title="Locked", template="Fixed.", tools=[FROZEN], accepts_overrides=False
        ),
    ],
)
rendered = prompt.render()
"""


def cli(tmp_path: Path, *argv: str, intro: str | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "prompts.py").write_text(textwrap.dedent(MODULE))
    env = {k: v for k, v in os.environ.items() if k not in ("INTRO", "AFFORDANCE_OVERRIDES_DIR")}
    if intro is not None:
        env["INTRO"] = intro
    return subprocess.run(
        [sys.executable, "-m", "affordance", "overrides", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )


def overrides_file(tmp_path: Path) -> Path:
    return tmp_path / "overrides" / "support" / "triage" / "latest.json"


def test_seed_edit_check_and_a_stale_override_caught_before_deploying(tmp_path: Path) -> None:
    seeded = cli(tmp_path, "seed", "prompts:prompt")
    assert seeded.returncode == 0, seeded.stderr
    assert seeded.stdout.startswith("wrote overrides/support/triage/latest.json: 1 sections")
    document = json.loads(overrides_file(tmp_path).read_text())
    assert document["target"] == "prompts:prompt"
    assert set(document["sections"]) == {"intro"}  # the locked section is not offered
    assert set(document["tools"]) == {"lookup"}

    document["sections"]["intro"]["template"] = "Help the user, briefly."
    document["tools"]["lookup"]["description"] = "Find an entity by its id."
    overrides_file(tmp_path).write_text(json.dumps(document))

    listed = cli(tmp_path, "list")
    assert listed.stdout == "support/triage@latest  1 sections, 1 tools  (prompts:prompt)\n"
    checked = cli(tmp_path, "check")
    assert (checked.returncode, checked.stdout) == (
        0,
        "support/triage@latest: ok, 2 overrides apply\n",
    )

    # the code's text changes: the override written for the old one is stale
    stale = cli(tmp_path, "check", intro="Help the user politely.")
    assert stale.returncode == 1
    assert "1 skipped, 1 apply" in stale.stdout
    assert "section 'intro' (stale): written against sha256:" in stale.stdout
    diff = cli(tmp_path, "diff", "prompts:prompt", intro="Help the user politely.")
    assert diff.returncode == 0
    assert "=== section intro template  [stale:" in diff.stdout
    assert "-Help the user politely.\n+Help the user, briefly.\n" in diff.stdout
    assert "-Fetch an entity.\n+Find an entity by its id.\n" in diff.stdout


def test_seed_keeps_an_edited_file_unless_forced(tmp_path: Path) -> None:
    assert cli(tmp_path, "seed", "prompts:prompt").returncode == 0
    again = cli(tmp_path, "seed", "prompts:prompt")
    assert again.returncode == 1
    assert "exists; pass --force" in again.stderr
    assert cli(tmp_path, "seed", "prompts:prompt", "--force").returncode == 0


def test_check_reports_refused_and_unknown_overrides(tmp_path: Path) -> None:
    assert cli(tmp_path, "seed", "prompts:prompt", "--tag", "trial").returncode == 0
    path = tmp_path / "overrides" / "support" / "triage" / "trial.json"
    document = json.loads(path.read_text())
    document["tools"]["frozen"] = {"original_hash": "sha256:x", "description": "Changed."}
    document["sections"]["gone"] = {"original_hash": "sha256:x", "template": "?"}
    path.write_text(json.dumps(document))

    checked = cli(tmp_path, "check", "prompts:prompt", "--tag", "trial")
    assert checked.returncode == 1
    assert "tool 'frozen' (refused)" in checked.stdout
    assert "section 'gone' (unknown)" in checked.stdout


def test_an_unreadable_file_fails_check_and_names_the_file(tmp_path: Path) -> None:
    path = overrides_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("{broken")

    checked = cli(tmp_path, "check", "prompts:prompt")
    assert checked.returncode == 1
    assert "overrides/support/triage/latest.json: is not JSON" in checked.stderr
    listed = cli(tmp_path, "list")
    assert "support/triage@latest  unreadable: is not JSON" in listed.stdout


def test_a_rendered_prompt_target_is_refused_in_one_line(tmp_path: Path) -> None:
    result = cli(tmp_path, "seed", "prompts:rendered")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "overrides belong to a PromptTemplate" in result.stderr


def test_the_directory_comes_from_the_option_or_the_environment(tmp_path: Path) -> None:
    assert cli(tmp_path, "seed", "prompts:prompt", "--dir", "tuned").returncode == 0
    assert (tmp_path / "tuned" / "support" / "triage" / "latest.json").exists()
    assert cli(tmp_path, "list").stdout == "no overrides under overrides\n"
    assert "support/triage@latest" in cli(tmp_path, "list", "--dir", "tuned").stdout
