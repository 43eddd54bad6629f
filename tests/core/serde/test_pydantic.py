"""Tests for pydantic v2 models, accepted wherever a dataclass is (pydantic is optional)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from affordance.serde import ParseError, dump, parse, schema

pydantic = pytest.importorskip("pydantic")


class Address(pydantic.BaseModel):
    street: str
    zip_code: str | None = None


class Person(pydantic.BaseModel):
    """A person to contact."""

    model_config = pydantic.ConfigDict(extra="forbid")

    name: str
    title: str = "Dr"  # a property named "title" must survive title stripping
    addresses: list[Address] = pydantic.Field(default_factory=list)


class Category(pydantic.BaseModel):
    name: str
    children: list[Category] = pydantic.Field(default_factory=list)


@dataclass(frozen=True)
class Envelope:
    person: Person
    note: str = ""


def test_parse_validates_with_the_model() -> None:
    person = parse(Person, {"name": "Ada", "addresses": [{"street": "Main"}]})
    assert person == Person(name="Ada", addresses=[Address(street="Main")])


def test_validation_errors_become_parse_errors_with_paths() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Person, {"name": 1, "addresses": [{}], "age": 3})
    errors = {error.path: error.message for error in caught.value.errors}
    assert errors[("addresses", 0, "street")] == "Field required"
    assert errors[("name",)].startswith("Input should be a valid string, got 1 (int)")
    assert ("age",) in errors
    assert str(caught.value).startswith("3 validation errors for Person:\n")


def test_models_nested_in_dataclasses_are_parsed_with_prefixed_paths() -> None:
    assert parse(Envelope, {"person": {"name": "Ada"}}).person.name == "Ada"
    with pytest.raises(ParseError, match=r"person\.addresses\[0\]\.street: Field required"):
        parse(Envelope, {"person": {"name": "Ada", "addresses": [{}]}})


def test_dump_uses_json_mode_model_dump() -> None:
    person = Person(name="Ada", addresses=[Address(street="Main")])
    assert dump(person) == {
        "name": "Ada",
        "title": "Dr",
        "addresses": [{"street": "Main", "zip_code": None}],
    }
    assert dump(person, exclude_none=True)["addresses"] == [{"street": "Main"}]
    assert dump(Envelope(person))["person"]["name"] == "Ada"


def test_round_trip_through_a_dataclass_holding_a_model() -> None:
    envelope = Envelope(Person(name="Ada"), note="hi")
    assert parse(Envelope, dump(envelope)) == envelope


def test_schema_drops_titles_but_keeps_a_property_named_title() -> None:
    result = schema(Person)
    assert "title" not in result
    assert "title" not in result["properties"]["name"]
    assert "title" not in result["$defs"]["Address"]
    assert result["properties"]["title"] == {"default": "Dr", "type": "string"}
    json.dumps(result)
    assert result["description"] == "A person to contact."


def test_schema_keeps_defs_and_refs_as_pydantic_emits_them() -> None:
    result = schema(Person)
    assert result["properties"]["addresses"]["items"] == {"$ref": "#/$defs/Address"}
    assert "street" in result["$defs"]["Address"]["properties"]


def test_schema_forbids_additional_properties_only_when_the_model_does() -> None:
    assert schema(Person)["additionalProperties"] is False
    assert "additionalProperties" not in schema(Address)


def test_recursive_root_model_is_inlined_as_an_object() -> None:
    result = schema(Category)
    assert result["type"] == "object"
    assert result["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert "Category" in result["$defs"]


def test_model_defs_are_hoisted_when_nested_in_a_dataclass() -> None:
    result = schema(Envelope)
    person = result["properties"]["person"]
    assert "$defs" not in person
    assert person["properties"]["addresses"]["items"] == {"$ref": "#/$defs/Address"}
    assert "Address" in result["$defs"]


def test_schema_of_model_is_cached() -> None:
    assert schema(Person) is schema(Person)
