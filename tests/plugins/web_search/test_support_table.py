"""specs/HOSTED_TOOLS.md's web search table is rendered from what each codec declares
(``honours``, ``fills``, ``notes``), the same data ``serialize`` enforces, so it cannot drift."""

from __future__ import annotations

from hosted_tools import check_spec_table, codec_class, support_table

from affordance_web_search import CONFIG_FIELDS, RESULT_FIELDS
from affordance_web_search.plugin import CODECS


def test_the_support_table_is_generated_from_the_codecs() -> None:
    table = support_table("web_search", CODECS, CONFIG_FIELDS, RESULT_FIELDS)

    check_spec_table("web_search", table)


def test_each_codec_declares_only_known_result_fields() -> None:
    for target in CODECS.values():
        assert set(codec_class(target).fills) <= set(RESULT_FIELDS)  # type: ignore[attr-defined]
