"""Tests for `ParseError` / `FieldError`: every problem reported, readable for an LLM."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from affordance.serde import FieldError, ParseError, parse


@dataclass(frozen=True)
class Filters:
    tags: list[str]
    limit: int = 10


@dataclass(frozen=True)
class CreateTaskParams:
    title: str
    filters: Filters
    notes: dict[str, str] = field(default_factory=dict)


def test_all_errors_of_an_object_are_collected() -> None:
    with pytest.raises(ParseError) as caught:
        parse(CreateTaskParams, {"title": 1, "filters": {"tags": ["a", 2, "c", 4], "limit": "x"}})
    assert [e.path for e in caught.value.errors] == [
        ("title",),
        ("filters", "tags", 1),
        ("filters", "tags", 3),
        ("filters", "limit"),
    ]


def test_message_names_the_type_and_one_path_per_line() -> None:
    with pytest.raises(ParseError) as caught:
        parse(CreateTaskParams, {"title": "t", "filters": {"tags": ["a", "b", 42]}, "extra": 1})
    assert str(caught.value) == (
        "2 validation errors for CreateTaskParams:\n"
        "  filters.tags[2]: expected a string, got 42 (int)\n"
        "  unknown field 'extra'; allowed fields: title, filters, notes"
    )


def test_message_header_is_singular_for_one_error() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Filters, {"tags": "a"})
    assert str(caught.value).startswith("1 validation error for Filters:\n")
    assert caught.value.type_name == "Filters"


def test_keys_that_are_not_identifiers_are_quoted_in_paths() -> None:
    with pytest.raises(ParseError) as caught:
        parse(CreateTaskParams, {"title": "t", "filters": {"tags": []}, "notes": {"a b": 1}})
    assert "  notes['a b']: expected a string, got 1 (int)" in str(caught.value)


def test_long_values_are_truncated_in_messages() -> None:
    with pytest.raises(ParseError) as caught:
        parse(int, "x" * 10_000)
    message = caught.value.errors[0].message
    assert "…" in message
    assert len(message) < 120


def test_long_containers_are_truncated_in_messages() -> None:
    with pytest.raises(ParseError) as caught:
        parse(str, list(range(1000)))
    assert caught.value.errors[0].message.endswith("… (list)")


def test_null_is_quoted_as_null() -> None:
    with pytest.raises(ParseError, match="expected a string, got null"):
        parse(str, None)


def test_top_level_type_names_are_readable_for_generic_types() -> None:
    with pytest.raises(ParseError, match=r"for list\[int\]:"):
        parse(list[int], ["a"])


def test_parse_error_is_a_value_error() -> None:
    assert issubclass(ParseError, ValueError)


def test_parse_error_survives_pickling() -> None:
    error = ParseError([FieldError(("a", 0), "bad")], type_name="T")
    copied = pickle.loads(pickle.dumps(error))
    assert copied.errors == error.errors
    assert str(copied) == str(error)


def test_field_error_is_a_frozen_slotted_value() -> None:
    error = FieldError(("a",), "bad")
    assert not hasattr(error, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.message = "other"  # type: ignore[misc]
    assert str(error) == "a: bad"
    assert str(FieldError((), "bad")) == "bad"
