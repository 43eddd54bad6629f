"""Tests for `affordance.serde.dump`, including dump → parse round trips."""

from __future__ import annotations

import datetime
import json
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum

import pytest

from affordance.serde import MAX_DEPTH, dump, parse


class Status(Enum):
    OPEN = "open"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class Owner:
    name: str
    email: str | None = None


@dataclass(frozen=True, slots=True)
class Task:
    title: str
    status: Status
    owner: Owner
    due: datetime.date | None = None
    tags: frozenset[str] = frozenset()
    checkpoints: tuple[datetime.datetime, ...] = ()
    budget: Decimal | None = None
    ref: uuid.UUID | None = None
    extra: dict[str, int] = field(default_factory=dict)


@dataclass
class Counter:
    start: int
    current: int = field(init=False)

    def __post_init__(self) -> None:
        self.current = self.start


TASK = Task(
    title="Ship",
    status=Status.DONE,
    owner=Owner("ada"),
    due=datetime.date(2024, 5, 6),
    tags=frozenset({"b", "a"}),
    checkpoints=(datetime.datetime(2024, 5, 1, 9, 30, tzinfo=datetime.timezone.utc),),
    budget=Decimal("12.50"),
    ref=uuid.UUID("12345678-1234-5678-1234-567812345678"),
    extra={"x": 1},
)


def test_dataclass_dumps_to_a_dict_in_field_order() -> None:
    assert list(dump(TASK)) == [
        "title",
        "status",
        "owner",
        "due",
        "tags",
        "checkpoints",
        "budget",
        "ref",
        "extra",
    ]


def test_dump_converts_each_kind_of_value() -> None:
    assert dump(TASK) == {
        "title": "Ship",
        "status": "done",
        "owner": {"name": "ada", "email": None},
        "due": "2024-05-06",
        "tags": ["a", "b"],
        "checkpoints": ["2024-05-01T09:30:00+00:00"],
        "budget": "12.50",
        "ref": "12345678-1234-5678-1234-567812345678",
        "extra": {"x": 1},
    }


def test_dump_output_is_json_serializable() -> None:
    json.dumps(dump(TASK))


def test_exclude_none_drops_none_fields_recursively() -> None:
    result = dump(Task("t", Status.OPEN, Owner("ada")), exclude_none=True)
    assert result == {
        "title": "t",
        "status": "open",
        "owner": {"name": "ada"},
        "tags": [],
        "checkpoints": [],
        "extra": {},
    }


def test_exclude_none_keeps_none_values_inside_dicts() -> None:
    assert dump({"a": None}, exclude_none=True) == {"a": None}


def test_primitives_are_returned_as_is() -> None:
    for value in ("s", 1, 1.5, True, None):
        assert dump(value) is value


def test_sequences_and_sets_become_lists() -> None:
    assert dump((1, 2)) == [1, 2]
    assert dump([Status.OPEN]) == ["open"]
    assert dump({3, 1, 2}) == [1, 2, 3]


def test_unsortable_sets_keep_iteration_order() -> None:
    assert sorted(dump({1, "a"}), key=str) == [1, "a"]


def test_time_dumps_as_isoformat() -> None:
    assert dump(datetime.time(7, 8)) == "07:08:00"


def test_mapping_keys_become_strings() -> None:
    data = OrderedDict([(Status.OPEN, 1), (2, 2), (1.5, 3), (True, 4), (None, 5)])
    assert dump(data) == {"open": 1, "2": 2, "1.5": 3, "true": 4, "null": 5}


def test_unknown_types_raise_type_error_with_type_and_path() -> None:
    with pytest.raises(TypeError, match=r"cannot dump builtins\.object at extra\[1\]"):
        dump({"extra": [1, object()]})


def test_unknown_root_type_names_the_root() -> None:
    with pytest.raises(TypeError, match=r"cannot dump builtins\.complex at the root"):
        dump(1j)


def test_unsupported_mapping_key_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="as an object key"):
        dump({(1, 2): "tuple key"})


def test_init_false_fields_are_not_dumped() -> None:
    assert dump(Counter(3)) == {"start": 3}


def test_round_trip_of_a_nested_dataclass() -> None:
    assert parse(Task, dump(TASK)) == TASK


def test_round_trip_through_json_text() -> None:
    assert parse(Task, json.loads(json.dumps(dump(TASK)))) == TASK


def test_round_trip_with_exclude_none() -> None:
    task = Task("t", Status.OPEN, Owner("ada"))
    assert parse(Task, dump(task, exclude_none=True)) == task


def test_round_trip_of_init_false_dataclass() -> None:
    assert parse(Counter, dump(Counter(3))) == Counter(3)


# -- nesting depth ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Link:
    next: Link | None = None


def chain(levels: int) -> Link:
    link = Link()
    for _ in range(levels - 1):
        link = Link(link)
    return link


def nested_lists(levels: int) -> list[object]:
    data: list[object] = []
    for _ in range(levels - 1):
        data = [data]
    return data


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 600, 5_000])
def test_values_nested_deeper_than_the_limit_are_refused(levels: int) -> None:
    for value in (chain(levels), nested_lists(levels), {"a": nested_lists(levels - 1)}):
        with pytest.raises(ValueError, match=f"nested deeper than {MAX_DEPTH} levels"):
            dump(value)


def test_values_nested_exactly_to_the_limit_dump() -> None:
    assert dump(nested_lists(MAX_DEPTH)) == nested_lists(MAX_DEPTH)
    data = dump(chain(MAX_DEPTH), exclude_none=True)
    assert json.dumps(data).count("{") == MAX_DEPTH
