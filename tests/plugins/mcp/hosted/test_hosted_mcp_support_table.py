"""specs/MCP_HOSTED.md's support table is rendered from what each codec declares
(``honours``, ``fills``, ``notes``), the same data ``serialize`` enforces; with
``AFFORDANCE_UPDATE_SPECS=1`` the test rewrites it instead."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hosted_tools import UPDATE_VARIABLE, codec_class, support_table

from affordance_mcp.hosted import CONFIG_FIELDS, RESULT_FIELDS
from affordance_mcp.plugin import CODECS

SPEC = Path(__file__).resolve().parents[4] / "specs" / "MCP_HOSTED.md"
BLOCK = re.compile(r"<!-- generated: mcp -->.*?<!-- end generated: mcp -->", re.DOTALL)


def test_the_support_table_is_generated_from_the_codecs() -> None:
    table = support_table("mcp", CODECS, CONFIG_FIELDS, RESULT_FIELDS)
    text = SPEC.read_text(encoding="utf-8")
    found = BLOCK.search(text)
    assert found is not None, f"{SPEC} has no generated block for 'mcp'"
    if os.environ.get(UPDATE_VARIABLE) == "1":
        SPEC.write_text(text[: found.start()] + table + text[found.end() :], encoding="utf-8")
        return
    assert found.group(0) == table, (
        f"the mcp support table in {SPEC.name} is stale; regenerate it with "
        f"{UPDATE_VARIABLE}=1 and this test"
    )


def test_each_codec_declares_only_known_fields() -> None:
    for target in CODECS.values():
        codec = codec_class(target)
        assert set(codec.honours) <= set(CONFIG_FIELDS)  # type: ignore[attr-defined]
        assert set(codec.fills) <= set(RESULT_FIELDS)  # type: ignore[attr-defined]
