"""Gemini's JSON-Schema dialect: each keyword outside the documented subset is transformed, and
the meaning survives (the executor still validates against the tool's own schema)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from affordance import Tool, ToolResult
from affordance.adapters import ConvertedSchema, convert_schema
from affordance_google._schema import GEMINI, SUPPORTED_KEYWORDS


def gemini_schema(original: Any) -> ConvertedSchema:
    return convert_schema(original, GEMINI)


def converted(schema: dict[str, Any]) -> dict[str, Any]:
    return gemini_schema(schema).schema


def test_a_schema_inside_the_subset_is_unchanged() -> None:
    schema = {
        "type": "object",
        "title": "Weather",
        "properties": {
            "city": {"type": "string", "description": "City name", "format": "date"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
        },
        "required": ["city"],
        "additionalProperties": False,
        "propertyOrdering": ["city", "days"],
        "$defs": {"Node": {"type": "object"}},
    }

    result = gemini_schema(schema)

    assert result.schema == schema
    assert result.note is None


def test_the_input_schema_is_never_modified() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}
    before = copy.deepcopy(schema)

    converted(schema)

    assert schema == before


def test_ref_beside_other_keywords_moves_into_a_one_branch_any_of() -> None:
    schema = {"$ref": "#/$defs/Node", "description": "The root", "$comment": "kept"}

    assert converted(schema) == {
        "anyOf": [{"$ref": "#/$defs/Node"}],
        "description": "The root",
        "$comment": "kept",
    }


def test_a_lone_ref_stays_as_it_is() -> None:
    assert converted({"$ref": "#/$defs/Node", "$comment": "x"}) == {
        "$ref": "#/$defs/Node",
        "$comment": "x",
    }


def test_const_becomes_a_one_value_enum() -> None:
    assert converted({"type": "string", "const": "fixed"}) == {"type": "string", "enum": ["fixed"]}


def test_an_enum_of_booleans_is_dropped_and_its_single_value_described() -> None:
    assert converted({"type": "boolean", "enum": [True], "description": "Flag."}) == {
        "type": "boolean",
        "description": "Flag. (must be true)",
    }


def test_an_enum_of_both_booleans_is_just_a_boolean() -> None:
    assert converted({"type": "boolean", "enum": [True, False]}) == {"type": "boolean"}


def test_an_enum_with_null_is_dropped_and_its_values_described() -> None:
    assert converted({"enum": ["a", None]}) == {"description": '(one of "a", null)'}


def test_exclusive_integer_bounds_become_the_next_inclusive_ones() -> None:
    schema = {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}

    assert converted(schema) == {"type": "integer", "minimum": 1, "maximum": 9}


def test_exclusive_number_bounds_become_inclusive_and_are_stated() -> None:
    schema = {"type": "number", "exclusiveMinimum": 0.5}

    assert converted(schema) == {
        "type": "number",
        "minimum": 0.5,
        "description": "(greater than 0.5)",
    }


def test_an_exclusive_bound_never_loosens_a_stricter_inclusive_one() -> None:
    schema = {"type": "integer", "exclusiveMinimum": 0, "minimum": 5}

    assert converted(schema)["minimum"] == 5


def test_all_of_one_schema_becomes_any_of_it() -> None:
    schema = {"allOf": [{"$ref": "#/$defs/A"}], "description": "An A."}

    assert converted(schema) == {"anyOf": [{"$ref": "#/$defs/A"}], "description": "An A."}


def test_constraints_outside_the_subset_move_into_the_description() -> None:
    schema = {
        "type": "string",
        "description": "A code.",
        "pattern": "^[a-z]+$",
        "minLength": 2,
        "maxLength": 8,
        "default": "ab",
    }

    assert converted(schema) == {
        "type": "string",
        "description": (
            'A code. (pattern "^[a-z]+$"; at least 2 characters; at most 8 characters; '
            'default "ab")'
        ),
    }


def test_number_and_collection_constraints_are_described() -> None:
    schema = {
        "type": "array",
        "items": {"type": "number", "multipleOf": 5},
        "uniqueItems": True,
    }
    object_schema = {"type": "object", "minProperties": 1, "maxProperties": 2}

    assert converted(schema) == {
        "type": "array",
        "items": {"type": "number", "description": "(a multiple of 5)"},
        "description": "(items unique)",
    }
    assert converted(object_schema)["description"] == (
        "(at least 1 properties; at most 2 properties)"
    )


def test_keywords_with_no_gemini_form_are_dropped_and_named_in_the_note() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "not": {"enum": ["x"]}}},
        "patternProperties": {"^x": {"type": "string"}},
        "allOf": [{"type": "object"}, {"required": ["a"]}],
        "if": {"required": ["a"]},
    }

    result = gemini_schema(schema)

    assert result.schema == {"type": "object", "properties": {"a": {"type": "string"}}}
    assert result.note == (
        "not expressible for Gemini and dropped (still validated): "
        "allOf, if, not, patternProperties"
    )


def test_transformations_reach_every_nested_schema() -> None:
    hidden = {"type": "string", "const": "x"}
    schema = {
        "type": "object",
        "properties": {
            "list": {"type": "array", "items": hidden},
            "tuple": {"type": "array", "prefixItems": [hidden]},
            "any": {"anyOf": [hidden]},
            "one": {"oneOf": [hidden]},
            "map": {"type": "object", "additionalProperties": hidden},
        },
        "$defs": {"D": hidden},
    }
    expected = {"type": "string", "enum": ["x"]}

    result = converted(schema)

    assert result["properties"]["list"]["items"] == expected
    assert result["properties"]["tuple"]["prefixItems"] == [expected]
    assert result["properties"]["any"]["anyOf"] == [expected]
    assert result["properties"]["one"]["oneOf"] == [expected]
    assert result["properties"]["map"]["additionalProperties"] == expected
    assert result["$defs"]["D"] == expected


def test_property_names_are_never_read_as_keywords() -> None:
    schema = {"type": "object", "properties": {"pattern": {"type": "string"}, "not": {}}}

    assert converted(schema) == schema


def test_the_note_names_what_was_rewritten() -> None:
    result = gemini_schema({"type": "string", "maxLength": 3, "const": "abc"})

    assert result.note == "rewritten for Gemini's JSON Schema subset: const, maxLength"


@dataclass
class Inner:
    x: int


@dataclass
class Everything:
    name: Annotated[str, {"min_length": 1, "max_length": 20, "pattern": "^[A-Za-z]+$"}]
    count: Annotated[int, {"gt": 0, "lt": 100}]
    ratio: Annotated[float, {"gt": 0}]
    inner: Inner
    mode: Literal["a", "b"] = "a"
    flag: Literal[True] = True
    tags: set[str] = field(default_factory=set)
    pair: tuple[int, str] = (1, "a")


def test_every_schema_the_core_generates_fits_the_subset() -> None:
    tool = Tool[Everything, str](
        name="everything", description="All shapes.", handler=lambda p: ToolResult.ok("ok")
    )

    result = converted(tool.parameters_schema())

    def keywords(node: Any) -> set[str]:
        if isinstance(node, list):
            return set().union(*(keywords(item) for item in node)) if node else set()
        if not isinstance(node, dict):
            return set()
        found = set(node)
        for key, value in node.items():
            if key in ("properties", "$defs"):
                found |= set().union(*(keywords(v) for v in value.values())) if value else set()
            elif isinstance(value, (dict, list)):
                found |= keywords(value)
        return found

    outside = {k for k in keywords(result) if not k.startswith("$")} - SUPPORTED_KEYWORDS
    assert outside == set()
    properties = result["properties"]
    assert properties["count"] == {"type": "integer", "minimum": 1, "maximum": 99}
    assert "at most 20 characters" in properties["name"]["description"]
