"""`parse`: JSON-like data → typed objects, through converters compiled once per type.

Parsing runs on every tool call, so each type is introspected once into a tree of closures
(cached per type and `extra` mode); a call is then plain dict lookups and function calls.
Converters raise `InvalidValueError` with paths relative to their value; containers catch it
only to prefix their key, so every problem in the data is reported, not just the first.

The work stays linear in the size of the data, which a model controls: containers convert each
item once (never again to collect errors), and a union remembers, for the length of one `parse`
call, what it made of each object it was given — otherwise trying `Add` before `Mul` on every
level of a recursive expression would cost 4**depth conversions.
"""

from __future__ import annotations

import contextvars
import itertools
import types
from collections.abc import Collection, Mapping
from typing import Any, Literal, TypeVar, overload

from affordance.serde import _pydantic
from affordance.serde._constraints import constraint_checker
from affordance.serde._depth import MAX_DEPTH, exceeds_depth, too_deep_message
from affordance.serde._errors import (
    FieldError,
    InvalidValueError,
    ParseError,
    short_repr,
    union_failure,
)
from affordance.serde._scalars import (
    SCALAR_CONVERTERS,
    Converter,
    enum_converter,
    literal_converter,
    pass_through,
    to_none,
)
from affordance.serde._shapes import (
    AnyShape,
    ArrayShape,
    ConstrainedShape,
    DataclassShape,
    EnumShape,
    LiteralShape,
    LocalKey,
    MappingShape,
    ModelShape,
    NoneShape,
    ScalarShape,
    Shape,
    TupleShape,
    UnionShape,
    cache_key,
    dataclass_fields,
    shape_of,
    type_name,
)
from affordance.serde.json_schema_type import JSONSchemaType

__all__ = ["parse"]

T = TypeVar("T")
Extra = Literal["forbid", "ignore"]

_converters: dict[tuple[Any, bool], Converter] = {}
"""Compiled converters by (`cache_key(type)`, forbid extra keys); filled lazily, never cleared."""

_JSON_SCALARS = frozenset({str, int, float, bool})
_NO_KEY = object()

_union_memo: contextvars.ContextVar[dict[tuple[int, int], tuple[Any, bool, Any]] | None] = (
    contextvars.ContextVar("affordance_serde_union_memo", default=None)
)
"""What each union made of each object, for the `parse` call in progress:
``(id(value), union id) -> (value, ok, result or InvalidValueError)``. The value is held so its
id cannot be reused while the memo lives."""

_union_ids: dict[Any, int] = {}
"""One id per distinct union (its member shapes and `extra` mode): `left: Expr` in `Add` and in
`Mul` compile to different closures, yet what one made of an object the other may reuse."""
_next_union_id = itertools.count()


@overload
def parse(cls: type[T], data: object, *, extra: Extra = "forbid") -> T: ...
@overload
def parse(cls: Any, data: object, *, extra: Extra = "forbid") -> Any: ...
def parse(cls: Any, data: object, *, extra: Extra = "forbid") -> Any:
    """Build a `cls` from JSON-like `data`, or raise `ParseError` listing every problem.

    `extra="forbid"` refuses keys a dataclass does not declare; `"ignore"` drops them.
    `parse(type(None), {})` is None, for tools that take no parameters. Data nested deeper
    than `MAX_DEPTH` levels is refused before any of it is converted.
    """
    if extra == "forbid":
        forbid = True
    elif extra == "ignore":
        forbid = False
    else:
        raise ValueError(f"extra must be 'forbid' or 'ignore', not {extra!r}")
    if isinstance(cls, JSONSchemaType):
        return cls.parse(data)
    if exceeds_depth(data, MAX_DEPTH):
        error = FieldError((), too_deep_message(MAX_DEPTH))
        raise ParseError([error], type_name=type_name(cls))
    if (cls is None or cls is types.NoneType) and isinstance(data, Mapping):
        if data and forbid:
            unknown = ", ".join(short_repr(key) for key in data)
            error = FieldError((), f"unknown field(s) {unknown}; none are allowed")
            raise ParseError([error], type_name="None")
        return None
    token = _union_memo.set(None)  # unions fill it in on first use; nested parses get their own
    try:
        return converter_for(cls, forbid)(data)
    except InvalidValueError as exc:
        raise ParseError(exc.errors, type_name=type_name(cls)) from None
    finally:
        _union_memo.reset(token)


def converter_for(tp: Any, forbid: bool) -> Converter:
    """The compiled converter for `tp`, built on first use."""
    key = cache_key(tp)
    if isinstance(key, LocalKey):
        return _Compiler(forbid).compile_root(tp)
    converter = _converters.get((key, forbid))
    if converter is None:
        converter = _converters.setdefault((key, forbid), _Compiler(forbid).compile_root(tp))
    return converter


class _Compiler:
    """Turns one type's shape tree into converters; tracks dataclasses for recursion."""

    def __init__(self, forbid: bool) -> None:
        self.forbid = forbid
        self.in_progress: dict[Any, list[Converter]] = {}
        self.finished: dict[Any, Converter] = {}

    def compile_root(self, tp: Any) -> Converter:
        converter = self.compile(shape_of(tp))
        for key, finished in self.finished.items():
            if not isinstance(key, LocalKey):
                _converters.setdefault((key, self.forbid), finished)
        return converter

    def compile(self, shape: Shape) -> Converter:
        if isinstance(shape, AnyShape):
            return pass_through
        if isinstance(shape, NoneShape):
            return to_none
        if isinstance(shape, ScalarShape):
            return SCALAR_CONVERTERS[shape.cls]
        if isinstance(shape, LiteralShape):
            return literal_converter(shape.values)
        if isinstance(shape, EnumShape):
            return enum_converter(shape.cls)
        if isinstance(shape, UnionShape):
            return self._union(shape)
        if isinstance(shape, ArrayShape):
            return self._array(shape)
        if isinstance(shape, TupleShape):
            return self._tuple(shape)
        if isinstance(shape, MappingShape):
            return self._mapping(shape)
        if isinstance(shape, DataclassShape):
            return self._dataclass(shape)
        if isinstance(shape, ModelShape):
            return _pydantic.model_converter(shape.cls)
        return self._constrained(shape)

    def _constrained(self, shape: ConstrainedShape) -> Converter:
        inner = self.compile(shape.inner)
        if not shape.constraints.checks_values:
            return inner
        check = constraint_checker(shape.constraints)

        def convert(value: Any) -> Any:
            result = inner(value)
            if result is not None and (problems := check(result)) is not None:
                raise InvalidValueError([FieldError((), problem) for problem in problems])
            return result

        return convert

    def _union(self, shape: UnionShape) -> Converter:
        members = [self.compile(member) for member in shape.members]
        if len(members) == 2 and NoneShape() in shape.members:
            inner = members[1] if isinstance(shape.members[0], NoneShape) else members[0]
            return lambda value: None if value is None else inner(value)
        # A JSON scalar that already has a member's exact type wins over earlier members
        # that would coerce it: 3.0 stays a float in `int | float`.
        exact = frozenset(_plain_json_type(member) for member in shape.members) - {None}
        names = [_shape_name(member) for member in shape.members]

        try:
            union_id = _union_ids.setdefault((shape, self.forbid), next(_next_union_id))
        except TypeError:  # a member holds unhashable metadata: remember per closure only
            union_id = next(_next_union_id)

        def attempt(value: Any) -> Any:
            failures: list[InvalidValueError] = []
            for member in members:
                try:
                    return member(value)
                except InvalidValueError as exc:
                    failures.append(exc)
            raise union_failure(names, failures, value)

        def convert(value: Any) -> Any:
            kind = type(value)
            if kind in exact:
                return value
            if kind in _JSON_SCALARS or value is None:
                return attempt(value)  # nothing nested: nothing to remember
            memo = _union_memo.get()
            if memo is None:
                memo = {}
                _union_memo.set(memo)
            key = (id(value), union_id)
            seen = memo.get(key)
            if seen is not None and seen[0] is value:
                if seen[1]:
                    return seen[2]
                raise seen[2]
            try:
                result = attempt(value)
            except InvalidValueError as exc:
                memo[key] = (value, False, exc)
                raise
            memo[key] = (value, True, result)
            return result

        return convert

    def _array(self, shape: ArrayShape) -> Converter:
        item = self.compile(shape.item)
        container = shape.container
        accepted: tuple[type[Collection[Any]], ...] = (list, tuple)
        if container is set or container is frozenset:
            accepted = (list, tuple, set, frozenset)

        def convert(value: Any) -> Any:
            if not isinstance(value, accepted):
                raise InvalidValueError.expected("an array", value)
            items: list[Any] = []
            errors: list[FieldError] = []
            for index, element in enumerate(value):
                try:
                    items.append(item(element))
                except InvalidValueError as exc:
                    errors.extend(exc.under(index))
            if errors:
                raise InvalidValueError(errors)
            return items if container is list else container(items)

        return convert

    def _tuple(self, shape: TupleShape) -> Converter:
        items = [self.compile(item) for item in shape.items]
        size = len(items)

        def convert(value: Any) -> tuple[Any, ...]:
            if not isinstance(value, list | tuple):
                raise InvalidValueError.expected("an array", value)
            if len(value) != size:
                noun = "item" if size == 1 else "items"
                raise InvalidValueError.message(f"expected {size} {noun}, got {len(value)}")
            result: list[Any] = []
            errors: list[FieldError] = []
            for index, (item, element) in enumerate(zip(items, value, strict=True)):
                try:
                    result.append(item(element))
                except InvalidValueError as exc:
                    errors.extend(exc.under(index))
            if errors:
                raise InvalidValueError(errors)
            return tuple(result)

        return convert

    def _mapping(self, shape: MappingShape) -> Converter:
        key_converter = self.compile(shape.key)
        value_converter = self.compile(shape.value)

        def convert(value: Any) -> dict[Any, Any]:
            if not isinstance(value, Mapping):
                raise InvalidValueError.expected("an object", value)
            result: dict[Any, Any] = {}
            errors: list[FieldError] = []
            for k, v in value.items():
                try:
                    converted_key = key_converter(k)
                except InvalidValueError as exc:
                    converted_key = _NO_KEY  # the result is dropped: there are errors
                    errors.extend(
                        FieldError((_path_key(k),), f"invalid key: {e.message}") for e in exc.errors
                    )
                try:
                    result[converted_key] = value_converter(v)
                except InvalidValueError as exc:
                    errors.extend(exc.under(_path_key(k)))
            if errors:
                raise InvalidValueError(errors)
            return result

        return convert

    def _dataclass(self, shape: DataclassShape) -> Converter:
        forbid = self.forbid
        key = cache_key(shape.tp)
        cached = None if isinstance(key, LocalKey) else _converters.get((key, forbid))
        if cached is not None:
            return cached
        if key in self.in_progress:  # a recursive reference: call through the cell
            cell = self.in_progress[key]

            def call_through(value: Any) -> Any:
                return cell[0](value)

            return call_through
        cell = self.in_progress[key] = []
        specs = dataclass_fields(shape)
        converters = {spec.name: self.compile(spec.shape) for spec in specs}
        required = frozenset(spec.name for spec in specs if spec.required)
        required_in_order = [spec.name for spec in specs if spec.required]
        allowed = ", ".join(converters) if converters else "none"
        cls = shape.cls

        def convert(value: Any) -> Any:
            if type(value) is not dict:
                if isinstance(value, cls):
                    return value
                if not isinstance(value, Mapping):
                    raise InvalidValueError.expected("an object", value)
            kwargs: dict[str, Any] = {}
            errors: list[FieldError] = []
            for name, element in value.items():
                converter = converters.get(name)
                if converter is None:
                    if forbid:
                        message = f"unknown field {short_repr(name)}; allowed fields: {allowed}"
                        errors.append(FieldError((), message))
                    continue
                try:
                    kwargs[name] = converter(element)
                except InvalidValueError as exc:
                    errors.extend(exc.under(name))
            if not required <= value.keys():
                missing = (name for name in required_in_order if name not in value)
                errors.extend(FieldError((name,), "missing required field") for name in missing)
            if errors:
                raise InvalidValueError(errors)
            return _construct(cls, kwargs)

        cell.append(convert)
        del self.in_progress[key]
        self.finished[key] = convert
        return convert


def _construct(cls: type[Any], kwargs: dict[str, Any]) -> Any:
    """`cls(**kwargs)`; a `ValueError` from `__post_init__` is a problem with the data."""
    try:
        return cls(**kwargs)
    except ParseError as exc:
        raise InvalidValueError(list(exc.errors)) from None
    except ValueError as exc:
        lines = (line.strip() for line in str(exc).splitlines())
        raise InvalidValueError.message("; ".join(line for line in lines if line)) from None


def _path_key(key: Any) -> str | int:
    return key if isinstance(key, str | int) else short_repr(key)


def _plain_json_type(shape: Shape) -> type | None:
    """The JSON scalar type a member takes as is, if it is one."""
    if isinstance(shape, NoneShape):
        return types.NoneType
    if isinstance(shape, ScalarShape) and shape.cls in _JSON_SCALARS:
        return shape.cls
    return None


def _shape_name(shape: Shape) -> str:
    if isinstance(shape, DataclassShape):
        return type_name(shape.tp)
    if isinstance(shape, ModelShape | ScalarShape | EnumShape):
        return shape.cls.__name__
    if isinstance(shape, ConstrainedShape):
        return _shape_name(shape.inner)
    return type(shape).__name__.removesuffix("Shape").lower()
