"""``fast_init``: the same ``__init__`` as the dataclass's, only cheaper."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any

import pytest

import affordance
from affordance._fastinit import _ORIGINAL_INITS, compiled_init, fast_init, replaced_init
from affordance.adapters import ModelRequest
from affordance.runtime.calls.executor import PreparedCall
from affordance.runtime.model.deltas import TextPiece
from affordance.runtime.record.stream_events import TextDelta


def _shape(init: Any) -> list[tuple[str, Any, bool]]:
    """Each parameter's name, kind and whether it has a default."""
    return [
        (p.name, p.kind, p.default is not inspect.Parameter.empty)
        for p in inspect.signature(init).parameters.values()
    ]


def test_the_core_uses_it_on_the_types_each_run_builds() -> None:
    built_per_run = {
        ModelRequest,
        PreparedCall,
        affordance.PromptResponse,
        affordance.ToolInvoked,
        affordance.ToolResult,
        affordance.ToolContext,
        TextDelta,
        TextPiece,
    }

    assert built_per_run <= set(_ORIGINAL_INITS)


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


DECORATED = sorted(_ORIGINAL_INITS.items(), key=lambda item: _qualified(item[0]))


@pytest.mark.parametrize("cls", [cls for cls, _ in DECORATED], ids=_qualified)
def test_every_decorated_class_keeps_the_dataclass_signature(cls: type[Any]) -> None:
    original = replaced_init(cls)
    init = compiled_init(cls)

    assert _shape(init) == _shape(original)
    for ours, theirs in zip(
        inspect.signature(init).parameters.values(),
        inspect.signature(original).parameters.values(),
        strict=True,
    ):
        if theirs.default is not inspect.Parameter.empty and not _is_factory(cls, theirs.name):
            assert ours.default is theirs.default


def _is_factory(cls: type[Any], name: str) -> bool:
    found = {f.name: f for f in dataclasses.fields(cls)}
    return found[name].default_factory is not dataclasses.MISSING


def _every_feature(decorate: bool) -> type[Any]:
    @dataclass(frozen=True, slots=True)
    class Sample:
        required: str
        number: int = 3
        tags: list[str] = field(default_factory=list)
        derived: str = field(init=False, default="")
        counted: list[int] = field(init=False, default_factory=lambda: [1])
        flag: bool = field(default=False, kw_only=True)
        label: str = field(kw_only=True, default_factory=lambda: "made")

        def __post_init__(self) -> None:
            object.__setattr__(self, "derived", f"{self.required}:{self.number}")

    return fast_init(Sample) if decorate else Sample


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("a",), {}),
        (("a", 5), {}),
        (("a", 5, ["x"]), {"flag": True}),
        (("a",), {"label": "given", "tags": ["y"]}),
    ],
)
def test_it_builds_what_the_dataclass_builds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    plain, fast = _every_feature(False), _every_feature(True)

    built, expected = fast(*args, **kwargs), plain(*args, **kwargs)

    assert dataclasses.asdict(built) == dataclasses.asdict(expected)
    assert built.derived == expected.derived  # __post_init__ ran


def test_a_factory_default_is_fresh_for_every_instance() -> None:
    sample = _every_feature(True)

    one, two = sample("a"), sample("b")

    assert one.tags == []
    assert one.tags is not two.tags
    assert one.counted == [1]
    assert one.counted is not two.counted


def test_the_class_stays_frozen_hashable_and_comparable() -> None:
    @fast_init
    @dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: int = 0

    point = Point(1, 2)

    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert point == Point(1, 2)
    assert hash(point) == hash(Point(1, 2))
    assert repr(point).endswith("Point(x=1, y=2)")
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]


def test_only_frozen_slotted_dataclasses_are_accepted() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(slots=True)
    class NotFrozen:
        x: int

    for cls in (NoSlots, NotFrozen, int):
        with pytest.raises(TypeError, match="frozen dataclass with slots"):
            fast_init(cls)
