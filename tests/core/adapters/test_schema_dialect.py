"""``ConvertedSchema`` (``affordance.adapters.schema_dialect``): a schema made nullable where it
was optional says how to read the model back — its ``normalize_arguments`` for a tool
declaration, its ``normalize_text`` for an output format — and a schema without such nulls
needs neither."""

from __future__ import annotations

from typing import Any

from affordance.adapters import (
    TYPED_KEYWORDS,
    OutputFormat,
    SchemaDialect,
    ToolDeclaration,
    convert_schema,
)

NULLABLE = SchemaDialect(
    name="Nullable",
    strict=True,
    kept=frozenset({"type", "properties", "required", "additionalProperties"}),
    unlisted="refuse",
    typed=TYPED_KEYWORDS,
    closes_listed=True,
    optional="nullable",
)


def obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **more}


OPTIONAL_A = obj({"a": {"type": "integer"}, "b": {"type": "string"}}, required=["b"])


def test_the_nulls_strict_mode_introduced_are_dropped_from_arguments_text_and_objects() -> None:
    converted = convert_schema(OPTIONAL_A, NULLABLE)
    normalize = converted.normalize_arguments
    assert normalize is not None

    assert normalize('{"a": null, "b": "x"}') == '{"b":"x"}'
    sent = {"a": None, "b": "x"}
    assert normalize(sent) == {"b": "x"}
    assert sent == {"a": None, "b": "x"}  # copied, never changed
    assert ToolDeclaration({}, normalize).normalize_arguments is normalize


def test_the_same_nulls_are_dropped_from_a_structured_answer() -> None:
    normalize = convert_schema(OPTIONAL_A, NULLABLE).normalize_text
    assert normalize is not None

    assert normalize('{"a": null, "b": "x"}') == '{"b":"x"}'
    assert normalize('{"a": 1, "b": "x"}') == '{"a": 1, "b": "x"}'  # nothing dropped: as sent
    assert normalize("not json") == "not json"
    assert OutputFormat({}, normalize).normalize_text is normalize


def test_a_schema_without_introduced_nulls_needs_no_normalizing() -> None:
    required = convert_schema(obj({"b": {"type": "string"}}, required=["b"]), NULLABLE)
    refused = convert_schema({"type": "object"}, NULLABLE)  # open: sent as is, not strict

    assert (required.normalize_arguments, required.normalize_text) == (None, None)
    assert not refused.strict
    assert (refused.normalize_arguments, refused.normalize_text) == (None, None)
