"""Every Python block of the guides runs as written, offline, in a fresh interpreter.

The guides are ``llms.md`` (the compact guide for an LLM writing code with affordance) and
``docs/tutorial.md`` (structuring a prompt with summarized sections, step by step). Each is a
walkthrough: its ```python blocks run one after another in one namespace, so a block may use
what an earlier block of the same file defined. A file's blocks run in their own subprocess
with ``-W error`` and every non-loopback connection refused
(``affordance.testing.network.block_network``): they must exit 0 with nothing on stderr, and
print what the guide says they print. Code that needs a provider, a server or a network is
shown in ```text blocks, which are not run.

``MIN_BLOCKS`` is a floor on each file's block count, so a fence that loses its ``python`` tag
is noticed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

MIN_BLOCKS = {"llms.md": 12, "docs/tutorial.md": 7}
"""The fewest ```python blocks each guide may hold."""

EXPECTED_OUTPUT = {
    "llms.md": [
        "A-1001 has shipped.",
        'To view full content, call `open_sections` with key "policies".]',
        "pending: delete_order",
        "Answer(verdict='refund', order_id='A-1001')",
    ],
    "docs/tutorial.md": [
        'To view full content, call `open_sections` with key "policies.returns".]',
        "tools offered: lookup_order, open_sections",
        "opened: ('policies', 'returns')",
    ],
}
"""Lines (or parts of lines) each guide's run must print: what its prose promises."""

_FENCE = re.compile(r"^```python(?P<marks>[^\n]*)\n(?P<code>.*?)^```$", re.S | re.M)

_RUNNER = """\
import json, pathlib, sys
from affordance.testing.network import block_network

name, blocks = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
namespace = {"__name__": "__main__"}
with block_network():
    for number, code in enumerate(blocks, start=1):
        exec(compile(code, f"{name} block {number}", "exec"), namespace)
"""


def python_blocks(guide: str) -> list[str]:
    text = (ROOT / guide).read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        assert match["marks"].strip() == "", f"{guide}: unexpected fence marks {match['marks']!r}"
        blocks.append(match["code"])
    return blocks


@pytest.mark.parametrize("guide", sorted(MIN_BLOCKS))
def test_the_guide_keeps_its_python_blocks(guide: str) -> None:
    assert len(python_blocks(guide)) >= MIN_BLOCKS[guide]


@pytest.mark.parametrize("guide", sorted(MIN_BLOCKS))
def test_every_block_of_the_guide_runs_in_order_offline(guide: str, tmp_path: Path) -> None:
    script = tmp_path / "blocks.json"
    script.write_text(json.dumps([guide, python_blocks(guide)]), encoding="utf-8")

    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", _RUNNER, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for expected in EXPECTED_OUTPUT[guide]:
        assert expected in result.stdout
