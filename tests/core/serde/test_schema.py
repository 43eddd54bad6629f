"""Tests for `affordance.serde.schema`: compact JSON Schema 2020-12."""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum, IntEnum
from typing import Any, Literal, Optional

from affordance.serde import schema


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True)
class Auto:
    a: int


@dataclass(frozen=True)
class Documented:
    """Find tasks.

    Matches on title and tags.
    """

    query: str = field(metadata={"description": "Words to look for"})
    limit: int = 10
    tags: list[str] = field(default_factory=list)
    since: datetime.date | None = None


@dataclass(frozen=True)
class Outer:
    inner: Documented
    point: tuple[int, int]


@dataclass(frozen=True)
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


@dataclass(frozen=True)
class Forest:
    trees: list[Node]
    best: Node | None = None


@dataclass(frozen=True)
class Ping:
    pong: Pong | None = None


@dataclass(frozen=True)
class Pong:
    ping: Ping | None = None


@dataclass(frozen=True)
class WithUnserializableDefault:
    marker: Any = field(default=object())


def test_dataclass_schema_is_a_closed_object_with_required_fields() -> None:
    assert schema(Auto) == {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "additionalProperties": False,
    }


def test_generated_dataclass_docstring_is_not_a_description() -> None:
    assert "description" not in schema(Auto)


def test_user_docstring_becomes_the_description_cleaned() -> None:
    assert schema(Documented)["description"] == "Find tasks.\n\nMatches on title and tags."


def test_fields_get_descriptions_and_json_defaults() -> None:
    props = schema(Documented)["properties"]
    assert props["query"] == {"type": "string", "description": "Words to look for"}
    assert props["limit"] == {"type": "integer", "default": 10}
    assert props["since"]["default"] is None


def test_default_factories_are_not_called_for_the_schema() -> None:
    assert "default" not in schema(Documented)["properties"]["tags"]


def test_defaults_without_json_form_are_left_out() -> None:
    assert schema(WithUnserializableDefault)["properties"]["marker"] == {}


def test_required_lists_only_fields_without_defaults() -> None:
    assert schema(Documented)["required"] == ["query"]


def test_no_titles_anywhere() -> None:
    assert '"title"' not in json.dumps(schema(Outer))


def test_optional_is_any_of_with_null() -> None:
    assert schema(Documented)["properties"]["since"]["anyOf"] == [
        {"type": "string", "format": "date"},
        {"type": "null"},
    ]


def test_unions_are_flattened_any_of() -> None:
    assert schema(Optional[int | str]) == {  # noqa: UP045 - nesting on purpose
        "anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]
    }


def test_literal_is_enum_with_shared_type() -> None:
    assert schema(Literal["a", "b"]) == {"type": "string", "enum": ["a", "b"]}
    assert schema(Literal[1, "a"]) == {"enum": [1, "a"]}


def test_enum_is_enum_of_values_with_type() -> None:
    assert schema(Color) == {"type": "string", "enum": ["red", "green"]}
    assert schema(Level) == {"type": "integer", "enum": [1, 2]}


def test_arrays_sets_and_tuples() -> None:
    assert schema(list[int]) == {"type": "array", "items": {"type": "integer"}}
    assert schema(tuple[str, ...]) == {"type": "array", "items": {"type": "string"}}
    assert schema(set[str]) == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert schema(list[Any]) == {"type": "array"}


def test_fixed_tuple_uses_prefix_items_and_exact_length() -> None:
    assert schema(tuple[int, str]) == {
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "minItems": 2,
        "maxItems": 2,
    }


def test_dict_is_object_with_additional_properties() -> None:
    assert schema(dict[str, int]) == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }
    assert schema(dict[str, Any]) == {"type": "object"}
    assert schema(dict[Color, int])["propertyNames"] == {"type": "string", "enum": ["red", "green"]}


def test_string_formats_for_dates_times_and_uuids() -> None:
    assert schema(datetime.datetime) == {"type": "string", "format": "date-time"}
    assert schema(datetime.date) == {"type": "string", "format": "date"}
    assert schema(datetime.time) == {"type": "string", "format": "time"}
    assert schema(uuid.UUID) == {"type": "string", "format": "uuid"}


def test_decimal_accepts_number_or_string() -> None:
    assert schema(Decimal) == {"anyOf": [{"type": "number"}, {"type": "string"}]}


def test_any_is_the_empty_schema() -> None:
    assert schema(Any) == {}
    assert schema(object) == {}


def test_none_is_null() -> None:
    assert schema(type(None)) == {"type": "null"}


def test_nested_dataclasses_are_inlined() -> None:
    result = schema(Outer)
    assert "$defs" not in result
    assert result["properties"]["inner"]["properties"]["query"]["type"] == "string"
    assert result["properties"]["inner"]["description"].startswith("Find tasks.")


def test_recursive_root_is_an_object_with_a_definition_for_references() -> None:
    result = schema(Node)
    assert result["type"] == "object"
    assert result["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert result["$defs"]["Node"]["properties"]["name"] == {"type": "string"}
    assert "$defs" not in result["$defs"]["Node"]


def test_recursive_nested_dataclass_is_referenced_everywhere() -> None:
    result = schema(Forest)
    assert result["properties"]["trees"]["items"] == {"$ref": "#/$defs/Node"}
    assert result["properties"]["best"]["anyOf"][0] == {"$ref": "#/$defs/Node"}
    assert set(result["$defs"]) == {"Node"}


def test_mutual_recursion_defines_only_the_recursive_entry_point() -> None:
    result = schema(Ping)
    pong = result["properties"]["pong"]["anyOf"][0]
    assert pong["properties"]["ping"]["anyOf"][0] == {"$ref": "#/$defs/Ping"}
    assert set(result["$defs"]) == {"Ping"}


def test_schema_is_cached_and_the_same_object_is_returned() -> None:
    assert schema(Documented) is schema(Documented)


def test_schemas_are_json_serializable() -> None:
    for tp in (Documented, Outer, Node, Forest, Ping):
        json.dumps(schema(tp))


def test_union_order_is_kept_per_spelling() -> None:
    assert schema(int | str)["anyOf"][0] == {"type": "integer"}
    assert schema(str | int)["anyOf"][0] == {"type": "string"}
