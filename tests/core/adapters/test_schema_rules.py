"""The schema rule kit: a dialect's tables and switches, applied by one set of rules.

The three shipped dialects are held byte for byte by ``test_provider_schemas.py``; here each
operation is shown on a small dialect of its own, and the example of ``specs/PLUGINS.md`` runs
as it is written there.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from affordance.adapters import (
    JSON_TYPES,
    SCHEMA_ORDER,
    TYPED_KEYWORDS,
    SchemaDialect,
    convert_schema,
    is_primitive,
    is_string_or_number,
    property_path,
    schema_prompt,
)

DOC = Path(__file__).resolve().parents[3] / "specs" / "PLUGINS.md"
EXAMPLE = re.compile(r"<!-- example: schema-dialect -->\n```python\n(?P<code>.*?)```\n", re.DOTALL)

STRICT = SchemaDialect(
    name="Strict",
    strict=True,
    kept=frozenset({"type", "properties", "required", "additionalProperties", "items", "enum"}),
    unlisted="refuse",
    dropped=frozenset({"default"}),
    restricted={"format": ("date",)},
    typed=TYPED_KEYWORDS,
    closes_listed=True,
    optional="nullable",
    max_depth=2,
    reasons={"unlisted": "{at}: no {key}"},
)
LENIENT = SchemaDialect(
    name="Lenient",
    strict=False,
    kept=frozenset({"type", "properties", "items", "enum", "description", "minimum"}),
    unlisted="drop",
    described=frozenset({"maxLength"}),
    renamed={"const": "enum"},
    literal=is_string_or_number,
    inclusive_bounds=True,
    description="phrases",
)


def obj(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **more}


def test_the_example_in_the_plugins_spec_runs_as_written() -> None:
    found = EXAMPLE.search(DOC.read_text(encoding="utf-8"))
    assert found is not None, "the schema-dialect example is missing from specs/PLUGINS.md"
    scope: dict[str, Any] = {}
    exec(compile(found["code"], str(DOC), "exec"), scope)  # its asserts are the test
    assert scope["converted"].strict


def test_a_strict_dialect_closes_objects_and_makes_optional_properties_nullable() -> None:
    schema = obj({"a": {"type": "integer", "default": 1}, "b": {"type": "string"}}, required=["b"])
    original = copy.deepcopy(schema)
    converted = convert_schema(schema, STRICT)
    assert converted.strict
    assert schema == original
    assert converted.schema == obj(
        {"a": {"type": ["integer", "null"]}, "b": {"type": "string"}},
        required=["a", "b"],
        additionalProperties=False,
    )
    assert converted.nulls is not None
    assert converted.nulls.normalize('{"a": null, "b": "x"}') == '{"b":"x"}'
    sent = {"a": None, "b": "x"}
    assert converted.nulls.normalize(sent) == {"b": "x"}
    assert sent == {"a": None, "b": "x"}


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        (obj({"a": {"type": "string", "maxLength": 2}}), "#/properties/a: no maxLength"),
        (obj({"a": {"type": "string", "format": "uri"}}), "#/properties/a uses format 'uri'"),
        (
            obj({"a": {"type": "string", "items": {}}}),
            "#/properties/a has items without type array",
        ),
        (obj({"a": obj({"b": obj({})})}), "objects nest deeper than 2 levels"),
        (
            obj({"a": {"type": "object"}}),
            "#/properties/a is an open object; strict objects are closed",
        ),
        (obj({"a": {}}), "#/properties/a allows a value of any type"),
    ],
)
def test_a_strict_dialect_refuses_with_the_reason_and_sends_the_schema_as_it_is(
    schema: dict[str, Any], reason: str
) -> None:
    converted = convert_schema(schema, STRICT)
    assert (converted.strict, converted.reason, converted.schema) == (False, reason, schema)


def test_a_lenient_dialect_renames_describes_and_drops_and_says_so_in_the_note() -> None:
    schema = {
        "type": "integer",
        "description": "A count.",
        "exclusiveMinimum": 0,
        "maxLength": 3,
        "not": {"type": "null"},
        "properties": {"p": {"const": True}},
    }
    converted = convert_schema(schema, LENIENT)
    assert converted.schema == {
        "type": "integer",
        "description": "A count. (at most 3 characters)",
        "properties": {"p": {"description": "(must be true)"}},
        "minimum": 1,
    }
    assert converted.changed == ("const", "enum", "exclusiveMinimum", "maxLength")
    assert converted.dropped == ("not",)
    assert converted.note == (
        "rewritten for Lenient's JSON Schema subset: const, enum, exclusiveMinimum, maxLength; "
        "not expressible for Lenient and dropped (still validated): not"
    )


def test_a_describing_dialect_states_what_it_cannot_send_as_json_in_its_order() -> None:
    dialect = SchemaDialect(
        name="Json",
        strict=True,
        kept=frozenset({"type", "description", "format", "enum"}),
        unlisted="describe",
        restricted={"format": ("date",)},
        typed={"format": "string"},
        types=JSON_TYPES,
        literal=is_primitive,
        order=SCHEMA_ORDER,
        where=property_path,
    )
    schema = {"description": "When.", "format": "time", "type": "string", "minLength": 1}
    converted = convert_schema(schema, dialect)
    assert json.dumps(converted.schema) == json.dumps(
        {"type": "string", "description": 'When.\n\n{"format": "time", "minLength": 1}'}
    )
    refused = convert_schema({"enum": [[1]]}, dialect)
    assert refused.reason == "the schema has an enum of non-primitive values"
    assert (
        convert_schema({"type": "date"}, dialect).reason == "the schema has an unknown type 'date'"
    )


def test_schema_prompt_states_the_schema_for_a_prompt() -> None:
    text = schema_prompt({"type": "integer"}, "Count")
    assert text.startswith("Give your final answer (Count) as a single JSON value")
    assert text.endswith('\n{"type":"integer"}')
