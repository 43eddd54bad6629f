"""``@frozen``: what ``@dataclass(frozen=True, slots=True)`` makes, its methods compiled when
first called."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import pkgutil
from dataclasses import dataclass, field
from typing import Any

import pytest

import affordance
from affordance._frozen import compile_methods, frozen, frozen_classes


def _import_the_core() -> None:
    """Every module of the core (the plugin system's too), so every class it makes is here."""
    for module in pkgutil.walk_packages(affordance.__path__, "affordance."):
        if ".cli." in module.name or module.name.endswith(".__main__"):
            continue
        importlib.import_module(module.name)


_import_the_core()


def _qualified(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _as_the_dataclass_makes_it(cls: type[Any]) -> type[Any]:
    """A ``@dataclass(frozen=True, slots=True)`` with ``cls``'s fields and ``__post_init__``."""
    namespace: dict[str, Any] = {"__annotations__": {}, "__qualname__": cls.__qualname__}
    for f in dataclasses.fields(cls):
        namespace["__annotations__"][f.name] = f.type
        namespace[f.name] = dataclasses.field(
            default=f.default,
            default_factory=f.default_factory,
            init=f.init,
            repr=f.repr,
            hash=f.hash,
            compare=f.compare,
            kw_only=f.kw_only,
        )
    made: type[Any] = dataclass(frozen=True, slots=True)(type(cls.__name__, (), namespace))
    return made


MADE = sorted(frozen_classes(), key=_qualified)


def test_the_core_makes_its_classes_with_it() -> None:
    assert len(MADE) > 100
    assert {affordance.ToolResult, affordance.ToolInvoked, affordance.PromptResponse} <= set(MADE)


@pytest.mark.parametrize("cls", MADE, ids=_qualified)
def test_each_class_keeps_the_dataclass_signature(cls: type[Any]) -> None:
    """Before its first instance (the stand-in's) and after (the compiled ``__init__``'s)."""
    if not hasattr(vars(cls)["__init__"], "__signature__"):
        pytest.skip("the body's own __init__, kept as the dataclass keeps it")
    expected = str(inspect.signature(_as_the_dataclass_makes_it(cls)))
    assert str(inspect.signature(cls)) == expected
    compile_methods(cls)
    assert str(inspect.signature(cls)) == expected


def _every_feature(decorate: Any) -> type[Any]:
    class Sample:
        required: str
        number: int = 3
        tags: list[str] = field(default_factory=list)
        derived: str = field(init=False, default="")
        counted: list[int] = field(init=False, default_factory=lambda: [1])
        hidden: str = field(default="h", repr=False, compare=False)
        flag: bool = field(default=False, kw_only=True)
        label: str = field(kw_only=True, default_factory=lambda: "made")

        def __post_init__(self) -> None:
            object.__setattr__(self, "derived", f"{self.required}:{self.number}")

    made: type[Any] = decorate(Sample)
    return made


CALLS = [
    (("a",), {}),
    (("a", 5), {}),
    (("a", 5, ["x"]), {"flag": True}),
    (("a",), {"label": "given", "tags": ["y"], "hidden": "other"}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_it_builds_what_the_dataclass_builds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    ours = _every_feature(frozen)
    theirs = _every_feature(dataclass(frozen=True, slots=True))

    built, expected = ours(*args, **kwargs), theirs(*args, **kwargs)

    assert dataclasses.asdict(built) == dataclasses.asdict(expected)
    assert built.derived == expected.derived  # __post_init__ ran
    assert repr(built).split("(", 1)[1] == repr(expected).split("(", 1)[1]
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__doc__ == theirs.__doc__  # made from the signature, as the dataclass makes it
    assert ours.__match_args__ == theirs.__match_args__


def test_equality_and_hash_follow_the_compared_fields() -> None:
    @frozen
    class Point:
        x: int
        y: int = 0
        note: str = field(default="", compare=False)

    assert Point(1, 2) == Point(1, 2, note="other")
    assert Point(1, 2) != Point(1, 3)
    assert hash(Point(1, 2)) == hash(Point(1, 2, note="other")) == hash((1, 2))
    assert Point(1) != (1, 0)
    assert {Point(1), Point(1)} == {Point(1)}


def test_the_class_stays_frozen_and_copyable() -> None:
    @frozen
    class Point:
        x: int
        y: int = 0

    point = Point(1, 2)

    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    assert copy.copy(point) == point
    assert copy.deepcopy(point) == point
    assert not hasattr(point, "__dict__")
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, 3)  # type: ignore[call-arg]


def test_a_pickled_instance_comes_back_equal() -> None:
    assert pickle.loads(pickle.dumps(affordance.ToolResult.ok(3))) == affordance.ToolResult.ok(3)


def test_a_factory_default_is_fresh_for_every_instance() -> None:
    sample = _every_feature(frozen)

    one, two = sample("a"), sample("b")

    assert one.tags == []
    assert one.tags is not two.tags
    assert one.counted == [1]
    assert one.counted is not two.counted


def test_what_the_body_defines_is_kept() -> None:
    @frozen
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

    assert repr(Named("A")) == "<A>"
    assert Named("A") == Named("a")
    # the dataclass's rule: __eq__ alone in the body still gets the fields' __hash__
    assert hash(Named("A")) == hash(("A",))


def test_a_subclass_compares_its_own_fields() -> None:
    @frozen
    class Base:
        x: int

    @frozen
    class Child(Base):
        y: int

    assert Child(1, 2) != Child(1, 3)
    assert repr(Child(1, 2)).endswith("Child(x=1, y=2)")
    assert Base(1) != Child(1, 2)


def test_a_plain_subclass_uses_the_bases_methods() -> None:
    @frozen
    class Base:
        x: int

    class Plain(Base):
        __slots__ = ()

    assert Plain(1) == Plain(1)
    assert repr(Plain(1)).endswith("Plain(x=1)")


def test_initvar_fields_are_refused() -> None:
    class WithInitVar:
        x: int
        seed: dataclasses.InitVar[int]

    with pytest.raises(TypeError, match="InitVar"):
        frozen(WithInitVar)


def test_repr_false_keeps_the_inherited_repr_and_eq_false_compares_by_identity() -> None:
    class Shown:
        __slots__ = ()

        def __repr__(self) -> str:
            return "<shown>"

    @frozen(repr=False)
    class Quiet(Shown):
        x: int

    @frozen(eq=False)
    class Unique:
        x: int

    assert repr(Quiet(1)) == "<shown>"
    assert Quiet(1) == Quiet(1)
    one = Unique(1)
    assert one != Unique(1)
    assert one == one
    assert hash(one) == object.__hash__(one)
    assert repr(one).endswith("Unique(x=1)")
