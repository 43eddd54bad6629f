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

from pathlib import Path

import pytest
from doc_blocks import python_blocks, run_offline

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

MIN_BLOCKS = {"llms.md": 13, "docs/tutorial.md": 7}
"""The fewest ```python blocks each guide may hold."""

EXPECTED_OUTPUT = {
    "llms.md": [
        "A-1001 has shipped.",
        'To view full content, call `open_sections` with key "policies".]',
        "pending: delete_order",
        "Answer(verdict='refund', order_id='A-1001')",
        "stopped at requests",
        "It has shipped.",
        "Answered by the backup.",
        "stored: 4",
        "tool says: Find an order by its id (A-####).",
    ],
    "docs/tutorial.md": [
        'To view full content, call `open_sections` with key "policies.returns".]',
        "tools offered: lookup_order, open_sections",
        "opened: ('policies', 'returns')",
    ],
}
"""Lines (or parts of lines) each guide's run must print: what its prose promises."""


def code_of(guide: str) -> list[str]:
    blocks = python_blocks(ROOT / guide)
    marked = [marks for marks, _ in blocks if marks]
    assert marked == [], f"{guide}: unexpected fence marks {marked}"
    return [code for _, code in blocks]


@pytest.mark.parametrize("guide", sorted(MIN_BLOCKS))
def test_the_guide_keeps_its_python_blocks(guide: str) -> None:
    assert len(code_of(guide)) >= MIN_BLOCKS[guide]


@pytest.mark.parametrize("guide", sorted(MIN_BLOCKS))
def test_every_block_of_the_guide_runs_in_order_offline(guide: str, tmp_path: Path) -> None:
    script = tmp_path / "guide.py"
    numbered = (f"# {guide} block {n}\n{code}" for n, code in enumerate(code_of(guide), 1))
    script.write_text("\n".join(numbered), encoding="utf-8")

    result = run_offline(script, warnings="error")

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    for expected in EXPECTED_OUTPUT[guide]:
        assert expected in result.stdout
