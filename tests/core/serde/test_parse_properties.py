"""Properties of `parse` over arbitrary JSON values: it raises `ParseError` and nothing else.

Hypothesis draws JSON values — arbitrary ones, near-valid objects built around the schemas'
own field names, and deeply nested ones — against dataclass schemas covering nesting,
optional fields, unions, lists, tuples, sets, mappings, enums, literals, constraints,
`__post_init__` checks and recursion. Derandomized and bounded, so the run is the same on every
machine and takes about a second.
"""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Any, Literal

import pytest

pytest.importorskip("hypothesis")  # a dev tool; the tox matrix's core envs run without it

from hypothesis import given, settings
from hypothesis import strategies as st

from affordance.serde import MAX_DEPTH, ParseError, dump, parse

PROPERTIES = settings(max_examples=150, derandomize=True, deadline=None, database=None)


class Color(Enum):
    RED = "red"
    GREEN = "green"


@dataclass(frozen=True)
class Point:
    x: int
    y: float = 0.0


@dataclass(frozen=True)
class Tag:
    name: str = field(metadata={"min_length": 1, "max_length": 8, "pattern": "^[a-z]+$"})
    weight: int = field(default=1, metadata={"ge": 0, "le": 10})


@dataclass(frozen=True)
class Span:
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError("end before start")


@dataclass(frozen=True)
class Node:
    name: str
    children: list[Node] = field(default_factory=list)


@dataclass(frozen=True)
class Everything:
    point: Point
    tags: list[Tag] = field(default_factory=list)
    color: Color | None = None
    mode: Literal["a", "b"] = "a"
    either: int | str | Point = 0
    span: Span | None = None
    when: datetime.datetime | None = None
    day: datetime.date | None = None
    ident: uuid.UUID | None = None
    amounts: dict[str, Decimal] = field(default_factory=dict)
    pair: tuple[int, str] | None = None
    labels: frozenset[str] = frozenset()
    tree: Node | None = None
    anything: Any = None


SCHEMAS: list[Any] = [
    Point,
    Tag,
    Span,
    Node,
    Everything,
    list[Point],
    dict[str, Tag],
    int | None,
    Color,
    tuple[Point, ...],
]

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included: json.loads accepts them too
    | st.text(max_size=12)
    | st.sampled_from(["red", "a", "2025-03-01T12:00:00Z", "2025-03-01", str(uuid.UUID(int=7))])
)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=24,
)
FIELD_NAMES = sorted(
    {"x", "y", "name", "weight", "start", "end", "children"} | set(Everything.__dataclass_fields__)
)
NEAR_VALID = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=4), children, max_size=6)
    ),
    max_leaves=30,
)


def nested(levels: int, inner: Any, kind: str) -> Any:
    value = inner
    for _ in range(levels):
        value = [value] if kind == "list" else {"name": "n", "children": [value]}
    return value


DEEP = st.builds(
    nested,
    st.integers(min_value=0, max_value=3 * MAX_DEPTH),
    SCALARS,
    st.sampled_from(["list", "node"]),
)


def parse_or_refuse(schema: Any, data: Any, extra: Literal["forbid", "ignore"]) -> None:
    """Parse; anything but a `ParseError` escaping fails the property."""
    try:
        value = parse(schema, data, extra=extra)
    except ParseError as error:
        refused = error
    else:
        dump(value)  # what parse accepts, dump can write back
        return
    assert refused.errors, "a ParseError names at least one problem"
    assert str(refused)


@PROPERTIES
@given(schema=st.sampled_from(SCHEMAS), data=JSON, extra=st.sampled_from(["forbid", "ignore"]))
def test_parse_raises_only_parse_error_on_arbitrary_json(schema, data, extra):
    parse_or_refuse(schema, data, extra)


@PROPERTIES
@given(
    schema=st.sampled_from(SCHEMAS), data=NEAR_VALID, extra=st.sampled_from(["forbid", "ignore"])
)
def test_parse_raises_only_parse_error_on_near_valid_objects(schema, data, extra):
    parse_or_refuse(schema, data, extra)


@PROPERTIES
@given(schema=st.sampled_from([Node, Everything, list[Any], Any]), data=DEEP)
def test_parse_raises_only_parse_error_on_deep_data(schema, data):
    parse_or_refuse(schema, data, "forbid")
