"""Tests for field constraints: enforced by `parse`, declared by `schema`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

import pytest

from affordance.serde import ParseError, parse, schema


@dataclass(frozen=True)
class Bounded:
    at_least: int = field(default=0, metadata={"ge": 0})
    above: float = field(default=1.0, metadata={"gt": 0})
    at_most: int = field(default=0, metadata={"le": 10})
    below: float = field(default=0.0, metadata={"lt": 1})


@dataclass(frozen=True)
class Sized:
    name: str = field(default="ab", metadata={"min_length": 1, "max_length": 3})
    tags: list[str] = field(default_factory=lambda: ["a"], metadata={"min_length": 1})
    pair: tuple[int, ...] = field(default=(1,), metadata={"max_length": 2})


@dataclass(frozen=True)
class Patterned:
    code: str = field(metadata={"pattern": "[0-9]{3}", "description": "Three digits"})


@dataclass(frozen=True)
class Annotations:
    count: Annotated[int, {"ge": 1}]
    # Outside the Optional: Python < 3.12 cannot put unhashable metadata inside a Union.
    maybe: Annotated[int | None, {"le": 5}] = None
    items: list[Annotated[str, {"min_length": 2}]] = field(default_factory=list)


@dataclass(frozen=True)
class OptionalBounded:
    score: float | None = field(default=None, metadata={"ge": 0, "le": 1})


def messages(data: dict[str, object], cls: type = Bounded) -> list[str]:
    with pytest.raises(ParseError) as caught:
        parse(cls, data)
    return [str(error) for error in caught.value.errors]


def test_numeric_bounds_are_enforced() -> None:
    assert messages({"at_least": -1, "above": 0, "at_most": 11, "below": 1}) == [
        "at_least: must be at least 0, got -1",
        "above: must be greater than 0, got 0.0",
        "at_most: must be at most 10, got 11",
        "below: must be less than 1, got 1.0",
    ]


def test_values_on_the_bounds_pass() -> None:
    assert parse(Bounded, {"at_least": 0, "at_most": 10, "below": 0.99, "above": 0.01})


def test_length_limits_apply_to_strings_lists_and_tuples() -> None:
    assert messages({"name": "", "tags": [], "pair": [1, 2, 3]}, Sized) == [
        "name: must have at least 1 character, got 0",
        "tags: must have at least 1 item, got 0",
        "pair: must have at most 2 items, got 3",
    ]


def test_pattern_is_a_search_like_json_schema() -> None:
    assert parse(Patterned, {"code": "abc123def"}).code == "abc123def"
    assert messages({"code": "12"}, Patterned) == [
        "code: must match the pattern '[0-9]{3}', got '12'"
    ]


def test_annotated_dict_metadata_constrains_values_and_items() -> None:
    assert messages({"count": 0, "maybe": 6, "items": ["ok", "x"]}, Annotations) == [
        "count: must be at least 1, got 0",
        "maybe: must be at most 5, got 6",
        "items[1]: must have at least 2 characters, got 1",
    ]


def test_constraints_on_optional_fields_skip_null() -> None:
    assert parse(OptionalBounded, {"score": None}).score is None
    assert messages({"score": 2}, OptionalBounded) == ["score: must be at most 1, got 2.0"]


def test_constraint_that_cannot_apply_to_the_type_is_a_type_error() -> None:
    @dataclass
    class Wrong:
        name: str = field(metadata={"ge": 0})

    with pytest.raises(TypeError, match="field 'name' of Wrong: constraints ge/gt/le/lt need"):
        parse(Wrong, {"name": "x"})


def test_malformed_constraint_values_are_type_errors() -> None:
    @dataclass
    class BadLength:
        name: str = field(metadata={"min_length": -1})

    @dataclass
    class BadPattern:
        name: str = field(metadata={"pattern": "("})

    with pytest.raises(TypeError, match="'min_length' must be a non-negative int"):
        parse(BadLength, {"name": "x"})
    with pytest.raises(TypeError, match="'pattern' is invalid"):
        schema(BadPattern)


def test_schema_maps_numeric_constraints() -> None:
    props = schema(Bounded)["properties"]
    assert props["at_least"] == {"type": "integer", "minimum": 0, "default": 0}
    assert props["above"]["exclusiveMinimum"] == 0
    assert props["at_most"]["maximum"] == 10
    assert props["below"]["exclusiveMaximum"] == 1


def test_schema_maps_lengths_by_json_type() -> None:
    props = schema(Sized)["properties"]
    assert props["name"]["minLength"] == 1
    assert props["name"]["maxLength"] == 3
    assert props["tags"]["minItems"] == 1
    assert props["pair"]["maxItems"] == 2


def test_schema_carries_pattern_and_description() -> None:
    assert schema(Patterned)["properties"]["code"] == {
        "type": "string",
        "pattern": "[0-9]{3}",
        "description": "Three digits",
    }


def test_schema_pushes_constraints_into_the_non_null_branch() -> None:
    assert schema(OptionalBounded)["properties"]["score"] == {
        "anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}],
        "default": None,
    }


def test_schema_of_annotated_items() -> None:
    props = schema(Annotations)["properties"]
    assert props["count"] == {"type": "integer", "minimum": 1}
    assert props["items"]["items"] == {"type": "string", "minLength": 2}
