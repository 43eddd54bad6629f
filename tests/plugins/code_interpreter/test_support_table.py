"""specs/HOSTED_TOOLS.md's code interpreter table is rendered from what each codec declares
(``honours``, ``fills``, ``notes``), the same data ``serialize`` enforces."""

from __future__ import annotations

from hosted_tools import check_spec_table, codec_class, support_table

from affordance_code_interpreter import CONFIG_FIELDS, RESULT_FIELDS
from affordance_code_interpreter.plugin import CODECS


def test_the_support_table_is_generated_from_the_codecs() -> None:
    table = support_table("code_interpreter", CODECS, CONFIG_FIELDS, RESULT_FIELDS)

    check_spec_table("code_interpreter", table)


def test_each_codec_declares_only_known_fields() -> None:
    for target in CODECS.values():
        codec = codec_class(target)
        assert set(codec.honours) <= set(CONFIG_FIELDS)  # type: ignore[attr-defined]
        assert set(codec.fills) <= set(RESULT_FIELDS)  # type: ignore[attr-defined]
