"""The strict-schema transform: strict whenever the meaning survives, else the schema as is."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

import pytest

from affordance.adapters import ConvertedSchema, convert_schema, drop_nulls_in_json
from affordance.serde import schema
from affordance_openai._schema import STRICT


def strict_schema(original: dict[str, Any]) -> ConvertedSchema:
    return convert_schema(original, STRICT)


@dataclass
class Inner:
    a: int
    b: list[str] = field(default_factory=list)


@dataclass
class Node:
    value: int
    next: Optional[Node] = None  # noqa: UP045 - the serde resolves the forward reference


@dataclass
class Params:
    entity_id: str = field(metadata={"description": "Global id"})
    include_related: bool = False
    note: Optional[str] = None  # noqa: UP045
    mode: Literal["a", "b"] = "a"
    inner: Optional[Inner] = None  # noqa: UP045
    items: list[Inner] = field(default_factory=list)
    node: Optional[Node] = None  # noqa: UP045


def test_required_fields_stay_and_optional_ones_become_required_and_nullable() -> None:
    converted = strict_schema(schema(Params))

    assert converted.strict
    out = converted.schema
    assert out["required"] == list(out["properties"])
    assert out["additionalProperties"] is False
    props = out["properties"]
    assert props["entity_id"] == {"type": "string", "description": "Global id"}
    assert props["include_related"] == {"type": ["boolean", "null"]}
    assert props["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert props["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    inner = props["inner"]["anyOf"][0]
    assert inner["required"] == ["a", "b"]
    assert inner["additionalProperties"] is False
    assert props["items"]["anyOf"][1] == {"type": "null"}
    assert out["$defs"]["Node"]["required"] == ["value", "next"]


def test_default_keywords_are_dropped() -> None:
    converted = strict_schema(schema(Params))

    assert "default" not in repr(converted.schema)


def test_the_input_schema_is_not_modified() -> None:
    original = schema(Params)
    before = copy.deepcopy(original)

    strict_schema(original)

    assert original == before


def test_nulls_the_transform_introduced_are_dropped_and_original_nulls_kept() -> None:
    converted = strict_schema(schema(Params))
    assert converted.nulls is not None
    sent = (
        '{"entity_id":"x","include_related":null,"note":null,"mode":null,'
        '"inner":{"a":1,"b":null},"items":[{"a":2,"b":null}],'
        '"node":{"value":1,"next":{"value":2,"next":null}}}'
    )

    cleaned = drop_nulls_in_json(sent, converted.nulls)

    assert cleaned == (
        '{"entity_id":"x","note":null,"inner":{"a":1},"items":[{"a":2}],'
        '"node":{"value":1,"next":{"value":2,"next":null}}}'
    )


def test_arguments_without_introduced_nulls_are_returned_unchanged() -> None:
    converted = strict_schema(schema(Params))
    assert converted.nulls is not None
    sent = '{"entity_id": "x", "include_related": true}'

    assert drop_nulls_in_json(sent, converted.nulls) is sent
    assert drop_nulls_in_json('{"entity_id": ', converted.nulls) == '{"entity_id": '


def test_arguments_nested_past_the_recursion_limit_are_returned_unchanged() -> None:
    converted = strict_schema(schema(Params))
    assert converted.nulls is not None
    deep = '{"entity_id": ' + "[" * 10_000 + "]" * 10_000 + "}"

    assert drop_nulls_in_json(deep, converted.nulls) is deep  # the executor refuses it


def test_a_schema_with_everything_required_needs_no_null_plan() -> None:
    @dataclass
    class AllRequired:
        city: str
        days: int

    converted = strict_schema(schema(AllRequired))

    assert converted.strict
    assert converted.nulls is None


@pytest.mark.parametrize(
    ("fragment", "reason"),
    [
        ({"type": "object", "additionalProperties": {"type": "integer"}}, "open object"),
        ({"type": "object"}, "open object"),
        ({"type": "object", "properties": {}, "additionalProperties": True}, "open object"),
        ({"type": "string", "minLength": 1}, "'minLength'"),
        ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, "'uniqueItems'"),
        ({"type": "array", "prefixItems": [{"type": "string"}]}, "'prefixItems'"),
        ({"type": "string", "format": "uri"}, "format 'uri'"),
        ({}, "accepts any value"),
        ({"allOf": [{"type": "string"}, {"type": "integer"}]}, "allOf"),
        ({"type": "integer", "not": {"const": 3}}, "'not'"),
    ],
)
def test_unsupported_constructs_keep_the_schema_as_is_and_not_strict(
    fragment: dict[str, Any], reason: str
) -> None:
    original = {
        "type": "object",
        "properties": {"x": fragment},
        "required": ["x"],
        "additionalProperties": False,
    }

    converted = strict_schema(original)

    assert not converted.strict
    assert converted.schema is original
    assert converted.reason is not None
    assert reason in converted.reason


def test_listed_properties_without_additional_properties_are_closed() -> None:
    converted = strict_schema({"type": "object", "properties": {"a": {"type": "string"}}})

    assert converted.strict
    assert converted.schema == {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}},
        "required": ["a"],
        "additionalProperties": False,
    }


def test_a_root_that_is_not_an_object_is_not_strict() -> None:
    assert not strict_schema({"type": "array", "items": {"type": "string"}}).strict


def test_supported_constraints_keep_strict() -> None:
    original = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time", "pattern": "^2"},
            "n": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["when", "n", "tags"],
        "additionalProperties": False,
    }

    converted = strict_schema(original)

    assert converted.strict
    assert converted.schema == original


def test_ref_with_siblings_is_inlined_and_single_allof_merged() -> None:
    original = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Point", "description": "start"},
            "b": {"allOf": [{"$ref": "#/$defs/Point"}], "description": "end"},
        },
        "required": ["a", "b"],
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
        },
    }

    converted = strict_schema(original)

    assert converted.strict
    point = {
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert converted.schema["properties"]["a"] == {**point, "description": "start"}
    assert converted.schema["properties"]["b"] == {**point, "description": "end"}
    assert converted.schema["$defs"]["Point"] == point


def test_a_recursive_ref_with_siblings_is_not_strict_instead_of_looping() -> None:
    node = {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/Node", "description": "the next node"}},
        "required": ["next"],
    }
    original = {**node, "$defs": {"Node": node}}

    converted = strict_schema(original)

    assert not converted.strict
    assert "recursively" in (converted.reason or "")


def test_deep_nesting_beyond_ten_objects_is_not_strict() -> None:
    leaf: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
    for _ in range(11):
        leaf = {"type": "object", "properties": {"child": leaf}, "required": ["child"]}

    converted = strict_schema(leaf)

    assert not converted.strict
    assert "deeper than 10" in (converted.reason or "")
