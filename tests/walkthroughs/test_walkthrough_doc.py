"""``specs/PLUGINS.md`` shows the walkthroughs' files as they are: each ``<!-- file: path -->``
marker is followed by a code block holding that file verbatim, and every file of the two
walkthroughs (``tests/fixtures/walkthroughs``, and their tests here) is shown.

After changing a walkthrough file, ``python tests/walkthroughs/test_walkthrough_doc.py``
rewrites the blocks from the files.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "specs" / "PLUGINS.md"
SHOWN = re.compile(r"<!-- file: (?P<path>\S+) -->\n```python\n(?P<code>.*?)```\n", re.DOTALL)
WALKTHROUGH_FILES = sorted(
    [
        *(
            path.relative_to(ROOT).as_posix()
            for path in (ROOT / "tests" / "fixtures" / "walkthroughs").rglob("*.py")
            if path.name != "__init__.py"
        ),
        "tests/walkthroughs/test_ndjson_provider.py",
        "tests/walkthroughs/test_file_search.py",
    ]
)


def shown(doc: str) -> dict[str, str]:
    """Each file the document shows, and the code it shows for it."""
    return {match["path"]: match["code"] for match in SHOWN.finditer(doc)}


def rewritten(doc: str) -> str:
    """The document with every shown file's block replaced by the file as it is."""

    def block(match: re.Match[str]) -> str:
        code = (ROOT / match["path"]).read_text()
        return f"<!-- file: {match['path']} -->\n```python\n{code}```\n"

    return SHOWN.sub(block, doc)


def test_each_block_holds_its_file_verbatim() -> None:
    blocks = shown(DOC.read_text())
    stale = [path for path, code in blocks.items() if (ROOT / path).read_text() != code]
    assert stale == [], f"run `python {Path(__file__).relative_to(ROOT)}` to rewrite {stale}"


def test_every_walkthrough_file_is_shown() -> None:
    assert sorted(shown(DOC.read_text())) == WALKTHROUGH_FILES


if __name__ == "__main__":
    DOC.write_text(rewritten(DOC.read_text()))
    sys.stdout.write(f"rewrote {len(shown(DOC.read_text()))} blocks of {DOC.relative_to(ROOT)}\n")
