"""Tests for `affordance.serde.parse`: accepted types, coercion rules, caching."""

# Postponed annotations on purpose: every dataclass here has string annotations to resolve.
from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from decimal import Decimal
from enum import Enum, IntEnum
from typing import Annotated, Any, Generic, Literal, NewType, Optional, TypeVar, Union

import pytest

from affordance.serde import MAX_DEPTH, ParseError, dump, parse, schema
from affordance.serde import _parse as parse_module

T = TypeVar("T")
UserId = NewType("UserId", int)


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Filters:
    tags: list[str] = field(default_factory=list)
    limit: int = 10


@dataclass(frozen=True, slots=True)
class Search:
    query: str
    filters: Filters = field(default_factory=Filters)
    color: Color | None = None


@dataclass
class WithComputed:
    a: int
    doubled: int = field(init=False)

    def __post_init__(self) -> None:
        self.doubled = self.a * 2


@dataclass(frozen=True)
class Forward:
    later: Later  # defined below: resolved from the module when first parsed


@dataclass(frozen=True)
class Later:
    value: str


@dataclass(frozen=True)
class Circle:
    radius: float


@dataclass(frozen=True)
class Square:
    side: float


@dataclass(frozen=True)
class Drawing:
    shape: Circle | Square


@dataclass(frozen=True)
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


@dataclass(frozen=True)
class Box(Generic[T]):
    item: T


@dataclass(frozen=True)
class Range:
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) must not exceed high ({self.high})")


# -- dataclasses ---------------------------------------------------------------------------


def test_parses_nested_dataclasses() -> None:
    result = parse(Search, {"query": "q", "filters": {"tags": ["a"], "limit": 3}})
    assert result == Search(query="q", filters=Filters(tags=["a"], limit=3))


def test_missing_fields_with_defaults_and_factories_take_them() -> None:
    result = parse(Search, {"query": "q"})
    assert result == Search(query="q", filters=Filters(tags=[], limit=10), color=None)


def test_init_false_fields_are_computed_not_accepted() -> None:
    assert parse(WithComputed, {"a": 2}).doubled == 4
    with pytest.raises(ParseError, match="unknown field 'doubled'"):
        parse(WithComputed, {"a": 2, "doubled": 5})


def test_string_annotations_resolve_in_the_class_module() -> None:
    assert parse(Forward, {"later": {"value": "v"}}) == Forward(Later("v"))


def test_recursive_dataclasses_parse() -> None:
    tree = parse(Node, {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]})
    assert tree.children[0].children[0] == Node("c")


def test_subscripted_generic_dataclass_uses_its_type_argument() -> None:
    assert parse(Box[int], {"item": 3}) == Box(3)
    with pytest.raises(ParseError, match="item: expected an integer"):
        parse(Box[int], {"item": "3"})


def test_instance_of_the_class_is_accepted_as_is() -> None:
    point = Point(1, 2)
    assert parse(Point, point) is point


def test_value_error_from_post_init_becomes_a_parse_error_at_the_object() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Range, {"low": 5, "high": 1})
    assert "low (5) must not exceed high (1)" in str(caught.value)


def test_unknown_keys_are_refused_by_default_naming_key_and_allowed_fields() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Point, {"x": 1, "y": 2, "z": 3})
    assert caught.value.errors[0].message == "unknown field 'z'; allowed fields: x, y"


def test_unknown_keys_are_dropped_with_extra_ignore() -> None:
    assert parse(Point, {"x": 1, "y": 2, "z": 3}, extra="ignore") == Point(1, 2)


def test_extra_ignore_applies_to_nested_dataclasses() -> None:
    data = {"query": "q", "filters": {"limit": 1, "junk": True}}
    assert parse(Search, data, extra="ignore").filters == Filters(limit=1)


def test_invalid_extra_mode_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="extra must be"):
        parse(Point, {}, extra="allow")  # type: ignore[arg-type]


def test_missing_required_fields_are_reported_by_name() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Point, {})
    assert [(e.path, e.message) for e in caught.value.errors] == [
        (("x",), "missing required field"),
        (("y",), "missing required field"),
    ]


def test_non_object_data_for_a_dataclass_is_refused() -> None:
    with pytest.raises(ParseError, match=r"expected an object, got \[1, 2\] \(list\)"):
        parse(Point, [1, 2])


# -- scalars and strictness --------------------------------------------------------------


def test_bool_is_not_accepted_for_int_or_float() -> None:
    with pytest.raises(ParseError, match="expected an integer, got True"):
        parse(int, True)
    with pytest.raises(ParseError, match="expected a number, got False"):
        parse(float, False)


def test_int_is_accepted_for_float_and_converted() -> None:
    result = parse(float, 3)
    assert result == 3.0
    assert type(result) is float


def test_integral_float_is_accepted_for_int_but_fractional_is_not() -> None:
    result = parse(int, 3.0)
    assert result == 3
    assert type(result) is int
    with pytest.raises(ParseError, match=r"expected an integer, got 3\.5 \(float\)"):
        parse(int, 3.5)


def test_strings_are_not_coerced_to_numbers_or_bools() -> None:
    for tp in (int, float, bool):
        with pytest.raises(ParseError):
            parse(tp, "1")


def test_numbers_are_not_coerced_to_strings() -> None:
    with pytest.raises(ParseError, match="expected a string, got 1 "):
        parse(str, 1)


def test_none_type_accepts_null_or_an_empty_object() -> None:
    assert parse(type(None), None) is None
    assert parse(type(None), {}) is None
    assert parse(None, {}) is None


def test_none_type_refuses_other_values_and_unknown_keys() -> None:
    with pytest.raises(ParseError, match="expected null"):
        parse(type(None), 0)
    with pytest.raises(ParseError, match="unknown field"):
        parse(type(None), {"a": 1})
    assert parse(type(None), {"a": 1}, extra="ignore") is None


def test_any_and_object_pass_values_through() -> None:
    value = {"nested": [1, object()]}
    assert parse(Any, value) is value
    assert parse(object, value) is value


def test_decimal_accepts_numbers_and_numeric_strings() -> None:
    assert parse(Decimal, "1.10") == Decimal("1.10")
    assert parse(Decimal, 0.1) == Decimal("0.1")
    assert parse(Decimal, 2) == Decimal(2)
    with pytest.raises(ParseError, match="finite"):
        parse(Decimal, "NaN")
    with pytest.raises(ParseError):
        parse(Decimal, True)


def test_uuid_accepts_strings_and_instances() -> None:
    value = uuid.uuid4()
    assert parse(uuid.UUID, str(value)) == value
    assert parse(uuid.UUID, value) is value
    with pytest.raises(ParseError, match="expected a UUID string"):
        parse(uuid.UUID, "not-a-uuid")


# -- dates and times ----------------------------------------------------------------------


def test_datetime_parses_iso_strings_including_z_suffix() -> None:
    result = parse(datetime.datetime, "2024-05-06T07:08:09Z")
    assert result == datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)
    assert parse(datetime.datetime, "2024-05-06T07:08:09") == datetime.datetime(2024, 5, 6, 7, 8, 9)


def test_date_and_time_parse_iso_strings() -> None:
    assert parse(datetime.date, "2024-05-06") == datetime.date(2024, 5, 6)
    assert parse(datetime.time, "07:08:09") == datetime.time(7, 8, 9)


def test_date_types_accept_instances_already_of_that_type() -> None:
    now = datetime.datetime(2024, 1, 1, 12)
    assert parse(datetime.datetime, now) is now
    assert parse(datetime.date, now.date()) == now.date()
    assert parse(datetime.time, now.time()) == now.time()


def test_date_refuses_a_datetime_instance() -> None:
    with pytest.raises(ParseError, match="expected an ISO 8601 date string"):
        parse(datetime.date, datetime.datetime(2024, 1, 1))


def test_malformed_dates_are_refused() -> None:
    with pytest.raises(ParseError, match="expected an ISO 8601 date-time string"):
        parse(datetime.datetime, "yesterday")


# -- enums and literals -------------------------------------------------------------------


def test_enum_parses_by_value() -> None:
    assert parse(Color, "red") is Color.RED
    assert parse(Level, 2) is Level.HIGH


def test_enum_accepts_member_name_as_fallback() -> None:
    assert parse(Color, "GREEN") is Color.GREEN


def test_enum_refusal_lists_the_values() -> None:
    with pytest.raises(ParseError, match="expected one of 'red', 'green', got 'blue'"):
        parse(Color, "blue")


def test_int_enum_does_not_accept_bool() -> None:
    with pytest.raises(ParseError):
        parse(Level, True)


def test_literal_accepts_only_its_values_with_matching_types() -> None:
    assert parse(Literal["a", 1], "a") == "a"
    assert parse(Literal["a", 1], 1) == 1
    with pytest.raises(ParseError, match="expected one of 'a', 1, got True"):
        parse(Literal["a", 1], True)


def test_literal_of_enum_member_accepts_its_value() -> None:
    assert parse(Literal[Color.RED], "red") is Color.RED


# -- unions -------------------------------------------------------------------------------


def test_optional_accepts_null_and_the_inner_type() -> None:
    assert parse(Optional[int], None) is None  # noqa: UP045 - the typing spelling too
    assert parse(int | None, 4) == 4


def test_optional_reports_the_inner_types_error() -> None:
    with pytest.raises(ParseError, match="expected an integer, got 'x'"):
        parse(Optional[int], "x")  # noqa: UP045 - the typing spelling too


def test_union_members_are_tried_in_order() -> None:
    assert type(parse(Union[float, Decimal], 3)) is float  # noqa: UP007 - the typing spelling
    assert type(parse(Decimal | float, 3)) is Decimal
    assert parse(int | str, "3") == "3"


def test_union_prefers_a_member_of_the_exact_json_type() -> None:
    result = parse(int | float, 3.0)
    assert type(result) is float


def test_union_of_dataclasses_picks_the_first_that_parses() -> None:
    assert parse(Drawing, {"shape": {"side": 2}}) == Drawing(Square(2))
    assert parse(Drawing, {"shape": {"radius": 1}}) == Drawing(Circle(1))


def test_union_of_wrong_kind_lists_every_expected_kind() -> None:
    with pytest.raises(ParseError, match=r"expected an integer or a string or null, got \[\]"):
        parse(Union[int, str, None], [])  # noqa: UP007 - the typing spelling too


def test_union_of_dataclasses_reports_the_closest_member() -> None:
    with pytest.raises(ParseError) as caught:
        parse(Drawing, {"shape": {"radius": "big"}})
    lines = str(caught.value).splitlines()
    assert "matches none of Circle, Square; errors for the closest, Circle:" in lines[1]
    assert lines[2] == "  shape.radius: expected a number, got 'big' (str)"


# -- containers ---------------------------------------------------------------------------


def test_list_and_sequence_build_lists() -> None:
    assert parse(list[int], [1, 2]) == [1, 2]
    assert parse(Sequence[str], ("a",)) == ["a"]


def test_list_refuses_strings_and_objects() -> None:
    for data in ("ab", {"a": 1}):
        with pytest.raises(ParseError, match="expected an array"):
            parse(list[str], data)


def test_variadic_tuple_builds_a_tuple() -> None:
    assert parse(tuple[int, ...], [1, 2, 3]) == (1, 2, 3)


def test_fixed_tuple_checks_length_and_each_position() -> None:
    assert parse(tuple[int, str], [1, "a"]) == (1, "a")
    with pytest.raises(ParseError, match="expected 2 items, got 3"):
        parse(tuple[int, str], [1, "a", "b"])
    with pytest.raises(ParseError, match=r"\[1\]: expected a string"):
        parse(tuple[int, str], [1, 2])


def test_sets_and_frozensets_collapse_duplicates() -> None:
    assert parse(set[int], [1, 2, 2]) == {1, 2}
    result = parse(frozenset[str], ["a"])
    assert result == frozenset({"a"})
    assert type(result) is frozenset


def test_dict_and_mapping_convert_values() -> None:
    assert parse(dict[str, int], {"a": 1}) == {"a": 1}
    assert parse(Mapping[str, Point], {"p": {"x": 1, "y": 2}}) == {"p": Point(1, 2)}


def test_mapping_errors_name_the_key() -> None:
    with pytest.raises(ParseError, match="b: expected an integer"):
        parse(dict[str, int], {"a": 1, "b": "2"})


def test_mapping_key_type_is_checked() -> None:
    with pytest.raises(ParseError, match="invalid key: expected one of 'red', 'green'"):
        parse(dict[Color, int], {"blue": 1})
    assert parse(dict[Color, int], {"red": 1}) == {Color.RED: 1}


def test_bare_containers_hold_anything() -> None:
    assert parse(list, [1, "a"]) == [1, "a"]
    assert parse(dict, {"a": [1]}) == {"a": [1]}


# -- wrappers -----------------------------------------------------------------------------


def test_annotated_is_unwrapped() -> None:
    assert parse(Annotated[int, "some note"], 3) == 3


def test_newtype_parses_as_its_supertype() -> None:
    assert parse(UserId, 7) == 7
    with pytest.raises(ParseError):
        parse(UserId, "7")


# -- unsupported types --------------------------------------------------------------------


def test_unsupported_types_raise_type_error_naming_the_field() -> None:
    @dataclass
    class Holder:
        blob: complex

    with pytest.raises(TypeError, match="field 'blob' of Holder: unsupported type complex"):
        parse(Holder, {"blob": "x"})


def test_bytes_travel_as_base64_text() -> None:
    @dataclass
    class Blob:
        data: bytes

    assert parse(Blob, {"data": "AAEC"}) == Blob(b"\x00\x01\x02")
    assert parse(Blob, {"data": b"raw"}) == Blob(b"raw")
    assert dump(Blob(b"\x00\x01\x02")) == {"data": "AAEC"}
    assert schema(Blob)["properties"]["data"] == {"type": "string", "contentEncoding": "base64"}
    with pytest.raises(ParseError, match="expected base64 text"):
        parse(Blob, {"data": "not base64!"})


def test_unresolvable_annotations_raise_type_error() -> None:
    @dataclass
    class Dangling:
        value: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(TypeError, match="cannot resolve the annotations of Dangling"):
        parse(Dangling, {"value": 1})


# -- caching ------------------------------------------------------------------------------


def test_converter_is_compiled_once_per_type_and_extra_mode() -> None:
    first = parse_module.converter_for(Search, True)
    assert parse_module.converter_for(Search, True) is first
    assert parse_module.converter_for(Search, False) is not first


def test_parse_does_not_reintrospect_a_cached_type(monkeypatch: pytest.MonkeyPatch) -> None:
    parse(Point, {"x": 1, "y": 2})

    def refuse(*args: object) -> None:
        raise AssertionError("introspected again")

    monkeypatch.setattr(parse_module, "dataclass_fields", refuse)
    monkeypatch.setattr(parse_module, "shape_of", refuse)
    assert parse(Point, {"x": 3, "y": 4}) == Point(3, 4)


def test_unhashable_annotated_types_still_parse() -> None:
    assert parse(Annotated[int, {"ge": 0}], 2) == 2


def test_union_order_is_part_of_the_cache_key() -> None:
    assert type(parse(list[float | Decimal], [3])[0]) is float
    assert type(parse(list[Decimal | float], [3])[0]) is Decimal


def test_generic_dataclass_with_unhashable_metadata_still_parses() -> None:
    bounded = Box[Annotated[int, {"ge": 0}]]
    assert parse(bounded, {"item": 1}) == Box(1)
    with pytest.raises(ParseError, match="item: must be at least 0"):
        parse(bounded, {"item": -1})


def test_init_var_fields_are_refused_with_a_type_error() -> None:
    @dataclass
    class Secretive:
        name: str
        token: InitVar[str]

    with pytest.raises(TypeError, match="InitVar"):
        parse(Secretive, {"name": "n", "token": "t"})


# -- nesting depth ----------------------------------------------------------------------------


def nested_objects(levels: int) -> Any:
    """``{"a": {"a": ... 1}}`` with ``levels`` objects."""
    data: Any = 1
    for _ in range(levels):
        data = {"a": data}
    return data


def nested_arrays(levels: int) -> Any:
    data: Any = []
    for _ in range(levels - 1):
        data = [data]
    return data


@dataclass(frozen=True, slots=True)
class Loose:
    a: Any = None


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 950, 5_000])
def test_data_nested_deeper_than_the_limit_is_a_parse_error(levels: int) -> None:
    for data in ({"a": nested_objects(levels - 1)}, {"a": nested_arrays(levels - 1)}):
        with pytest.raises(ParseError, match=f"nested deeper than {MAX_DEPTH} levels"):
            parse(Loose, data)
    with pytest.raises(ParseError, match=f"nested deeper than {MAX_DEPTH} levels"):
        parse(Any, nested_arrays(levels))


def test_data_nested_exactly_to_the_limit_parses() -> None:
    data = {"a": nested_objects(MAX_DEPTH - 1)}
    assert parse(Loose, data) == Loose(nested_objects(MAX_DEPTH - 1))
    assert parse(list[Any], nested_arrays(MAX_DEPTH)) == nested_arrays(MAX_DEPTH)


def test_a_recursive_dataclass_is_bounded_by_the_same_limit() -> None:
    deep: Any = {"name": "leaf"}
    for _ in range(2_000):
        deep = {"name": "n", "children": [deep]}
    with pytest.raises(ParseError, match=f"nested deeper than {MAX_DEPTH} levels"):
        parse(Node, deep)


def test_the_limit_is_documented_in_a_sane_range() -> None:
    assert 64 <= MAX_DEPTH <= 128


# -- work stays linear in the data: no re-parsing per level ---------------------------------------

CONVERSIONS: list[str] = []


@dataclass(frozen=True)
class Counted:
    """A leaf that records each time it is built (its `__post_init__` refuses `bad`)."""

    value: str

    def __post_init__(self) -> None:
        CONVERSIONS.append(self.value)
        if self.value == "bad":
            raise ValueError("bad leaf")


@dataclass(frozen=True)
class Branch:
    children: list[Branch] = field(default_factory=list)
    index: dict[str, Branch] = field(default_factory=dict)
    leaf: Counted | None = None


def test_an_invalid_leaf_deep_in_lists_is_converted_once() -> None:
    data: Any = {"leaf": {"value": "bad"}}
    for _ in range(30):  # re-parsing each level on failure would take 2**30 conversions
        data = {"children": [data]}
    CONVERSIONS.clear()
    with pytest.raises(ParseError, match=r"children\[0\]\.children\[0\].*bad leaf"):
        parse(Branch, data)
    assert CONVERSIONS == ["bad"]


def test_an_invalid_leaf_deep_in_mappings_is_converted_once() -> None:
    data: Any = {"leaf": {"value": "bad"}}
    for _ in range(30):
        data = {"index": {"k": data}}
    CONVERSIONS.clear()
    with pytest.raises(ParseError, match="bad leaf"):
        parse(Branch, data)
    assert CONVERSIONS == ["bad"]


@dataclass(frozen=True)
class Lit:
    type: Literal["lit"]
    value: Counted


@dataclass(frozen=True)
class Add:
    type: Literal["add"]
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Mul:
    type: Literal["mul"]
    left: Expr
    right: Expr


Expr = Union[Add, Mul, Lit]  # noqa: UP007 - a module-level alias the dataclasses above refer to


def test_a_recursive_union_converts_each_node_once() -> None:
    data: Any = {"type": "lit", "value": {"value": "0"}}
    levels = 30  # trying Add, then Mul, on every level would take about 4**30 conversions
    for level in range(1, levels + 1):
        right = {"type": "lit", "value": {"value": str(level)}}
        data = {"type": "mul", "left": data, "right": right}
    CONVERSIONS.clear()
    parsed = parse(Expr, data)
    assert isinstance(parsed, Mul)
    assert sorted(CONVERSIONS, key=int) == [str(level) for level in range(levels + 1)]


def test_a_recursive_union_refuses_a_deep_error_after_one_pass() -> None:
    data: Any = {"type": "lit", "value": {"value": "bad"}}
    for _ in range(30):
        data = {"type": "add", "left": data, "right": {"type": "lit", "value": {"value": "1"}}}
    CONVERSIONS.clear()
    with pytest.raises(ParseError):
        parse(Expr, data)
    assert CONVERSIONS.count("bad") == 1
    assert CONVERSIONS.count("1") == 30
