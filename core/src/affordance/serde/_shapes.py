"""Type introspection: what a Python type looks like to serde, as a small tree of shapes.

`parse` compiles shapes into converters and `schema` renders them as JSON Schema, so both read
the `typing` machinery in exactly one place and always agree on what a type means.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import enum
import types
import typing
import uuid
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias, TypeVar, Union

from affordance._frozen import frozen
from affordance.serde import _pydantic
from affordance.serde._constraints import Constraints, constraints_from

__all__ = [
    "SCALAR_TYPES",
    "AnyShape",
    "ArrayShape",
    "ConstrainedShape",
    "DataclassShape",
    "EnumShape",
    "FieldSpec",
    "LiteralShape",
    "LocalKey",
    "MappingShape",
    "ModelShape",
    "NoneShape",
    "ScalarShape",
    "Shape",
    "TupleShape",
    "UnionShape",
    "cache_key",
    "dataclass_fields",
    "shape_of",
    "type_name",
]

SCALAR_TYPES: frozenset[type] = frozenset(
    {
        bool,
        int,
        float,
        str,
        Decimal,
        datetime.datetime,
        datetime.date,
        datetime.time,
        uuid.UUID,
        bytes,
    }
)
_NUMBERS: frozenset[type] = frozenset({int, float, Decimal})

_ARRAY_ORIGINS: dict[object, type[Any]] = {
    list: list,
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    set: set,
    collections.abc.MutableSet: set,
    frozenset: frozenset,
    collections.abc.Set: frozenset,
}
_MAPPING_ORIGINS = frozenset({dict, collections.abc.Mapping, collections.abc.MutableMapping})


@frozen
class AnyShape:
    """`Any` or `object`: any value passes through untouched."""


@frozen
class NoneShape:
    """`None`: only null."""


@frozen
class ScalarShape:
    """One of `SCALAR_TYPES`."""

    cls: type


@frozen
class LiteralShape:
    values: tuple[Any, ...]


@frozen
class EnumShape:
    cls: type[enum.Enum]


@frozen
class UnionShape:
    """Members in declaration order (`None` included as a `NoneShape`)."""

    members: tuple[Shape, ...]


@frozen
class ArrayShape:
    """A homogeneous list, `tuple[X, ...]`, set or frozenset; `container` builds the result."""

    item: Shape
    container: type[Any]


@frozen
class TupleShape:
    """A fixed-length tuple such as `tuple[int, str]`."""

    items: tuple[Shape, ...]


@frozen
class MappingShape:
    key: Shape
    value: Shape


@frozen
class DataclassShape:
    """A dataclass; `tp` is what was written (maybe `Box[int]`), `cls` the class itself."""

    tp: Any
    cls: type
    type_args: tuple[tuple[TypeVar, Any], ...] = ()


@frozen
class ModelShape:
    """A pydantic v2 model, handled by pydantic itself."""

    cls: type


@frozen
class ConstrainedShape:
    """`inner` with constraints (or just a description) from field metadata or `Annotated`."""

    inner: Shape
    constraints: Constraints


Shape: TypeAlias = (
    AnyShape
    | NoneShape
    | ScalarShape
    | LiteralShape
    | EnumShape
    | UnionShape
    | ArrayShape
    | TupleShape
    | MappingShape
    | DataclassShape
    | ModelShape
    | ConstrainedShape
)


@frozen
class FieldSpec:
    """An `init` field of a dataclass; `default` is `dataclasses.MISSING` when there is none."""

    name: str
    shape: Shape
    required: bool
    default: Any


def shape_of(tp: Any) -> Shape:
    """The shape of `tp`; raises `TypeError` for types serde does not support."""
    if tp is None or tp is types.NoneType:
        return NoneShape()
    if tp is Any or tp is object:
        return AnyShape()
    if isinstance(tp, str | typing.ForwardRef):
        raise TypeError(f"unresolved forward reference {tp!r}; pass the type itself")
    if isinstance(tp, TypeVar):
        return AnyShape() if tp.__bound__ is None else shape_of(tp.__bound__)
    if hasattr(tp, "__supertype__"):  # NewType
        return shape_of(tp.__supertype__)
    if type(tp).__name__ == "TypeAliasType":  # `type X = ...` (3.12+)
        return shape_of(tp.__value__)
    origin = typing.get_origin(tp)
    if origin is not None:
        return _generic_shape(tp, origin, typing.get_args(tp))
    if isinstance(tp, type):
        return _class_shape(tp)
    raise TypeError(f"unsupported type {tp!r}")


def _generic_shape(tp: Any, origin: Any, args: tuple[Any, ...]) -> Shape:
    if origin is Annotated:
        constraints = Constraints()
        for meta in tp.__metadata__:
            if isinstance(meta, collections.abc.Mapping):
                found = constraints_from(meta, where=f"Annotated metadata of {type_name(tp)}")
                constraints = constraints.merged(found)
        return constrained(shape_of(args[0]), constraints, where=type_name(tp))
    if origin is Union or origin is types.UnionType:
        return UnionShape(tuple(shape_of(arg) for arg in args))
    if origin is Literal:
        return LiteralShape(args)
    if origin is ClassVar or origin is Final:
        return shape_of(args[0])
    if origin in _ARRAY_ORIGINS:
        return ArrayShape(shape_of(args[0]) if args else AnyShape(), _ARRAY_ORIGINS[origin])
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return ArrayShape(shape_of(args[0]), tuple)
        if args == ((),):  # `tuple[()]` on Python 3.10
            args = ()
        return TupleShape(tuple(shape_of(arg) for arg in args))
    if origin in _MAPPING_ORIGINS:
        if not args:
            return MappingShape(AnyShape(), AnyShape())
        return MappingShape(shape_of(args[0]), shape_of(args[1]))
    if isinstance(origin, type) and dataclasses.is_dataclass(origin):
        parameters = getattr(origin, "__parameters__", ())
        return DataclassShape(tp, origin, tuple(zip(parameters, args, strict=False)))
    raise TypeError(f"unsupported type {type_name(tp)}")


def _class_shape(cls: type) -> Shape:
    if issubclass(cls, enum.Enum):
        return EnumShape(cls)
    if cls in SCALAR_TYPES:
        return ScalarShape(cls)
    if dataclasses.is_dataclass(cls):
        return DataclassShape(cls, cls)
    if _pydantic.is_model(cls):
        return ModelShape(cls)
    if cls in _ARRAY_ORIGINS or cls is tuple or cls in _MAPPING_ORIGINS:
        return _generic_shape(cls, cls, ())
    raise TypeError(f"unsupported type {type_name(cls)}")


def constrained(shape: Shape, constraints: Constraints, where: str) -> Shape:
    """`shape` with `constraints` added; `TypeError` when one cannot apply to its values."""
    if constraints == Constraints():
        return shape
    if isinstance(shape, ConstrainedShape):
        constraints = shape.constraints.merged(constraints)
        shape = shape.inner
    kinds = _value_kinds(shape)
    for needed, present, words in (
        ("number", constraints.has_bounds, "ge/gt/le/lt need a number type"),
        ("sized", constraints.has_lengths, "min_length/max_length need a string or collection"),
        ("string", constraints.pattern is not None, "pattern needs a string type"),
    ):
        if present and needed not in kinds:
            raise TypeError(f"{where}: constraints {words}")
    return ConstrainedShape(shape, constraints)


def _value_kinds(shape: Shape) -> set[str]:
    """Which kinds of constraint can apply to values of `shape`."""
    if isinstance(shape, AnyShape):
        return {"number", "sized", "string"}
    if isinstance(shape, ScalarShape):
        if shape.cls is str:
            return {"sized", "string"}
        return {"number"} if shape.cls in _NUMBERS else set()
    if isinstance(shape, ArrayShape | TupleShape | MappingShape):
        return {"sized"}
    if isinstance(shape, ConstrainedShape):
        return _value_kinds(shape.inner)
    if isinstance(shape, UnionShape):
        return set().union(*(_value_kinds(member) for member in shape.members))
    return set()


def dataclass_fields(shape: DataclassShape) -> tuple[FieldSpec, ...]:
    """The fields a dataclass takes in `__init__`, with annotations resolved to shapes."""
    cls = shape.cls
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError, AttributeError) as exc:
        raise TypeError(f"cannot resolve the annotations of {type_name(cls)}: {exc}") from exc
    init_vars = [name for name, hint in hints.items() if isinstance(hint, dataclasses.InitVar)]
    if init_vars:
        raise TypeError(f"{type_name(cls)}: InitVar fields are not supported ({init_vars[0]!r})")
    substitutions = dict(shape.type_args)
    specs: list[FieldSpec] = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        where = f"field {field.name!r} of {type_name(shape.tp)}"
        hint = _substitute(hints[field.name], substitutions)
        try:
            field_shape = shape_of(hint)
        except TypeError as exc:
            raise TypeError(f"{where}: {exc}") from exc
        field_shape = constrained(field_shape, constraints_from(field.metadata, where), where)
        has_default = field.default is not dataclasses.MISSING
        has_factory = field.default_factory is not dataclasses.MISSING
        specs.append(
            FieldSpec(
                name=field.name,
                shape=field_shape,
                required=not (has_default or has_factory),
                default=field.default,
            )
        )
    return tuple(specs)


def _substitute(hint: Any, substitutions: dict[TypeVar, Any]) -> Any:
    """`hint` with the type variables of a subscripted generic dataclass filled in."""
    if not substitutions:
        return hint
    if isinstance(hint, TypeVar):
        return substitutions.get(hint, hint)
    parameters = getattr(hint, "__parameters__", ())
    if parameters:
        return hint[tuple(substitutions.get(p, p) for p in parameters)]
    return hint


class LocalKey(str):
    """A `cache_key` fit for one compilation only: the type itself cannot be hashed."""

    __slots__ = ()


def cache_key(tp: Any) -> Any:
    """A dict key for `tp` that, unlike `tp` itself, tells `A | B` from `B | A`.

    Unions compare equal regardless of order (so do aliases holding them), yet the order of
    members decides what `parse` returns and how `schema` lists them; the repr keeps it.
    Types holding unhashable metadata (`Annotated[int, {...}]`) get a `LocalKey`.
    """
    if type(tp) is type:  # the common case first: a plain class
        return tp
    key = tp if isinstance(tp, type) and not _is_generic_alias(tp) else (tp, repr(tp))
    try:
        hash(key)
    except TypeError:
        return LocalKey(repr(tp))
    return key


def _is_generic_alias(tp: object) -> bool:
    return isinstance(tp, types.GenericAlias)  # `list[int]` passes as a `type` on 3.10


def type_name(tp: Any) -> str:
    """A short readable name for messages: `Foo`, `list[Foo]`, `int | None`."""
    if tp is None or tp is types.NoneType:
        return "None"
    if tp is Ellipsis:
        return "..."
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Union or origin is types.UnionType:
        return " | ".join(type_name(arg) for arg in args)
    if origin is Literal:
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin is Annotated:
        return type_name(args[0])
    if origin is not None and args:
        return f"{type_name(origin)}[{', '.join(type_name(arg) for arg in args)}]"
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) else repr(tp).replace("typing.", "")
