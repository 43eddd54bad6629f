"""Anthropic's strict subset: each transformation keeps the schema's meaning, or the schema goes
unchanged and not strict with the reason; the input schema is never modified."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

import pytest

from affordance import Tool
from affordance.adapters import ConvertedSchema, convert_schema
from affordance.adapters import schema_cost as strict_schema_cost
from affordance_anthropic._schema import STRICT


def strict_schema(original: dict[str, Any]) -> ConvertedSchema:
    return convert_schema(original, STRICT)


def strict(schema: dict[str, Any]) -> Any:
    before = copy.deepcopy(schema)
    converted = strict_schema(schema)
    assert schema == before  # never modified
    assert converted.strict, converted.reason
    return converted.schema


def refused(schema: dict[str, Any]) -> str:
    converted = strict_schema(schema)
    assert not converted.strict
    assert converted.schema is schema  # sent as it is
    assert converted.reason is not None
    return converted.reason


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def test_each_node_is_sent_in_one_order_whatever_the_input_order_and_hash_seed() -> None:
    a = {"title": "T", "minLength": 1, "description": "D", "type": "string"}
    b = {"type": "string", "description": "D", "minLength": 1, "title": "T"}
    expected = ["type", "description", "title"]  # once the order of a set: it varied by process
    assert list(strict(obj({"a": a}))["properties"]["a"]) == expected
    assert strict(obj({"a": a})) == strict(obj({"a": b}))


def test_a_closed_object_stays_as_it_is_and_optional_fields_stay_optional() -> None:
    schema = obj({"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"])

    assert strict(schema) == schema


def test_constraints_strict_mode_lacks_move_into_the_description_as_json() -> None:
    schema = obj(
        {
            "count": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many"},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$", "maxLength": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "unit": {"type": "string", "default": "c"},
        },
        ["count"],
    )

    properties = strict(schema)["properties"]

    assert properties["count"] == {
        "type": "integer",
        "description": 'How many\n\n{"maximum": 10, "minimum": 1}',
    }
    assert properties["code"] == {
        "type": "string",
        "description": '{"maxLength": 3, "pattern": "^[A-Z]{3}$"}',
    }
    assert properties["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": '{"uniqueItems": true}',
    }
    assert properties["unit"] == {"type": "string", "description": '{"default": "c"}'}


@pytest.mark.parametrize(
    ("keyword", "kept"),
    [
        ("date-time", True),
        ("uuid", True),
        ("email", True),
        ("uri", True),
        ("ipv4", True),
        ("regex", False),
        ("int32", False),
    ],
)
def test_only_the_supported_string_formats_stay(keyword: str, kept: bool) -> None:
    converted = strict(obj({"v": {"type": "string", "format": keyword}}))["properties"]["v"]

    if kept:
        assert converted == {"type": "string", "format": keyword}
    else:
        assert converted == {"type": "string", "description": f'{{"format": "{keyword}"}}'}


@pytest.mark.parametrize(("min_items", "kept"), [(0, True), (1, True), (2, False)])
def test_min_items_stays_only_as_0_or_1(min_items: int, kept: bool) -> None:
    array = {"type": "array", "items": {"type": "integer"}, "minItems": min_items}

    converted = strict(obj({"v": array}))["properties"]["v"]

    assert ("minItems" in converted) is kept
    assert ("description" in converted) is not kept


def test_one_of_becomes_any_of_and_unions_enums_and_consts_stay() -> None:
    schema = obj(
        {
            "a": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"type": ["string", "null"]},
            "d": {"enum": ["x", 1, None, True]},
            "e": {"const": "fixed"},
        }
    )

    properties = strict(schema)["properties"]

    assert properties["a"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert properties["b"] == schema["properties"]["b"]
    assert properties["c"] == {"type": ["string", "null"]}
    assert properties["d"] == {"enum": ["x", 1, None, True]}
    assert properties["e"] == {"const": "fixed"}


def test_local_definitions_stay_and_a_ref_with_siblings_is_inlined() -> None:
    point = obj({"x": {"type": "number"}}, ["x"])
    schema = {
        **obj(
            {
                "a": {"$ref": "#/$defs/Point"},
                "b": {"$ref": "#/$defs/Point", "description": "The second"},
            },
            ["a", "b"],
        ),
        "$defs": {"Point": point},
    }

    converted = strict(schema)

    assert converted["$defs"] == {"Point": point}
    assert converted["properties"]["a"] == {"$ref": "#/$defs/Point"}
    assert converted["properties"]["b"] == {**point, "description": "The second"}


def test_an_all_of_holding_a_ref_inlines_it() -> None:
    point = obj({"x": {"type": "number"}}, ["x"])
    schema = {**obj({"p": {"allOf": [{"$ref": "#/$defs/P"}]}}), "$defs": {"P": point}}

    assert strict(schema)["properties"]["p"] == {"allOf": [point]}


def test_schema_and_comment_keywords_are_dropped() -> None:
    schema = {**obj({}), "$schema": "https://json-schema.org/draft/2020-12/schema"}

    assert strict(schema) == obj({})


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "properties": {}}, "the schema is an open object"),
        (
            obj({"m": {"type": "object", "additionalProperties": {"type": "integer"}}}),
            "property 'm' is a mapping",
        ),
        (obj({"v": {}}), "property 'v' allows a value of any type"),
        (obj({"v": {"type": "array"}}), "property 'v' is an array of any values"),
        (
            obj({"v": {"type": "array", "prefixItems": [{"type": "integer"}]}}),
            "property 'v' uses prefixItems",
        ),
        (obj({"v": {"not": {"type": "string"}}}), "property 'v' uses not"),
        (obj({"v": {"enum": [{"a": 1}]}}), "enum of non-primitive values"),
        (obj({"v": {"const": [1]}}), "non-primitive const"),
        (obj({"v": {"$ref": "https://example.com/s.json"}}), "not a local definition"),
        (obj({"v": {"type": "date"}}), "unknown type 'date'"),
        (
            {
                **obj({"next": {"$ref": "#/$defs/Node"}}),
                "$defs": {"Node": obj({"next": {"$ref": "#/$defs/Node"}})},
            },
            "recursive (through 'Node')",
        ),
    ],
)
def test_what_strict_mode_cannot_mean_is_sent_unchanged_with_the_reason(
    schema: dict[str, Any], reason: str
) -> None:
    assert reason in refused(schema)


class Color(Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    label: str


@dataclass(frozen=True)
class Params:
    name: str = field(metadata={"description": "Who"})
    color: Color = Color.RED
    mode: Literal["fast", "slow"] = "fast"
    inner: Inner | None = None
    limit: int | None = None


def test_a_dataclass_params_schema_from_the_core_is_strict() -> None:
    tool = Tool[Params, str](name="t", description="A tool.")

    converted = strict_schema(tool.parameters_schema())

    assert converted.strict
    assert converted.schema["required"] == ["name"]
    assert converted.schema["properties"]["inner"]["anyOf"][0]["additionalProperties"] is False


def test_the_cost_counts_optional_and_union_properties_at_every_depth() -> None:
    schema = obj(
        {
            "a": {"type": "string"},
            "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": obj({"d": {"type": ["integer", "null"]}, "e": {"type": "integer"}}, ["e"]),
        },
        ["a"],
    )

    cost = strict_schema_cost(schema)

    assert (cost.optional, cost.unions) == (3, 2)  # b, c, d optional; b, d unions
