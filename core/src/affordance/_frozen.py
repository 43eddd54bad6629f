"""``@frozen``: ``@dataclass(frozen=True, slots=True)``, its methods compiled when first called.

``dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__`` and ``__hash__`` and
compiles it when the class is made: about half of what making the class costs, and importing
what a run needs makes a hundred classes. :func:`frozen` makes the dataclass without those four and
gives it a stand-in for each; the first call of a stand-in compiles the method, puts it in the
stand-in's place and runs it, so a class pays only for what is used, once.

What it makes is what ``dataclass(frozen=True, slots=True)`` makes, but for two things:
``__init__`` stores each field through its slot's descriptor, about half the cost of the
dataclass's ``object.__setattr__`` per field (a run builds some twenty such objects); and
``__dataclass_params__`` says ``init``, ``repr`` and ``eq`` are off, since the dataclass did not
write those methods. ``__repr__``, ``__eq__`` and ``__hash__`` are the dataclass's own, written
for the same fields; a method the class body defines is kept, as the dataclass keeps it. The
signature (``inspect.signature``, ``help``) is the dataclass's, given before the first call.
``InitVar`` fields are refused. ``tests/core/test_frozen.py`` compares every class made with
the dataclass made from the same fields.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # typing has it from 3.11; the type checkers read the branch above

    def dataclass_transform(**_options: object) -> Callable[[Any], Any]:
        return lambda decorator: decorator


__all__ = ["compile_methods", "frozen", "frozen_classes"]

T = TypeVar("T")

_MADE: list[type[Any]] = []

_GENERATED = ("__repr__", "__eq__", "__hash__")

_INIT_VAR = getattr(dataclasses, "_FIELD_INITVAR")  # noqa: B009  # how a Field says it is an InitVar


class _Factory:
    """The default of a parameter whose field has a ``default_factory``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # as the dataclass's own signature shows it


_FACTORY = _Factory()
_EITHER = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD = inspect.Parameter.KEYWORD_ONLY


@overload
def frozen(cls: type[T], /) -> type[T]: ...


@overload
def frozen(*, repr: bool = True, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def frozen(
    cls: type[T] | None = None, /, *, repr: bool = True, eq: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """Make ``cls`` a frozen, slotted dataclass whose methods compile when first called.

    ``repr=False`` and ``eq=False`` mean what they mean to ``dataclass``: no ``__repr__`` (the
    inherited one stays), no ``__eq__`` nor ``__hash__`` (instances compare by identity)."""
    if cls is None:
        return lambda cls: _make(cls, repr=repr, eq=eq)
    return _make(cls, repr=repr, eq=eq)


def _make(cls: type[T], *, repr: bool, eq: bool) -> type[T]:
    body = cls.__dict__
    wanted = [name for name, on in (("__repr__", repr), ("__eq__", eq)) if on and name not in body]
    declared_hash = body.get("__hash__", dataclasses.MISSING)
    # the dataclass's rule: a body defining __eq__ alone has __hash__ None, which is not a choice
    if eq and (
        declared_hash is dataclasses.MISSING or (declared_hash is None and "__eq__" in body)
    ):
        wanted.append("__hash__")
    undocumented = not body.get("__doc__")
    made: type[Any] = dataclasses.dataclass(
        frozen=True, slots=True, init=False, repr=False, eq=False
    )(cls)
    if any(f._field_type is _INIT_VAR for f in made.__dataclass_fields__.values()):
        raise TypeError(f"@frozen does not take InitVar fields: {made.__qualname__}")
    signature = _signature(made)
    if "__init__" not in body:  # one the body defines is kept, as the dataclass keeps it
        made.__init__ = _stand_in_init(made, signature)
    for name in wanted:
        setattr(made, name, _stand_in(made, name))
    if undocumented:  # as the dataclass writes it
        made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
    _MADE.append(made)
    return made


def frozen_classes() -> tuple[type[Any], ...]:
    """Every class :func:`frozen` made so far (for tests)."""
    return tuple(_MADE)


def compile_methods(cls: type[Any]) -> None:
    """Compile what is still a stand-in on ``cls`` now (for tests)."""
    if _is_stand_in(cls.__dict__.get("__init__"), cls):
        cls.__init__ = _compiled_init(cls)
    _install(cls)


def _signature(cls: type[Any]) -> inspect.Signature:
    """The signature the dataclass's ``__init__`` would show, without ``self``."""
    positional: list[inspect.Parameter] = []
    keyword: list[inspect.Parameter] = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        if field.default is not dataclasses.MISSING:
            default: Any = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = _FACTORY
        else:
            default = inspect.Parameter.empty
        if field.kw_only:
            keyword.append(
                inspect.Parameter(field.name, _KEYWORD, default=default, annotation=field.type)
            )
        else:
            positional.append(
                inspect.Parameter(field.name, _EITHER, default=default, annotation=field.type)
            )
    return inspect.Signature([*positional, *keyword], return_annotation=None)


def _is_stand_in(method: object, cls: type[Any]) -> bool:
    return getattr(method, "_stand_in_of", None) is cls


def _stand_in_init(cls: type[Any], signature: inspect.Signature) -> Callable[..., None]:
    def stand_in(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _compiled_init(cls)
        cls.__init__ = init
        init(self, *args, **kwargs)

    self = inspect.Parameter("self", _EITHER)
    stand_in.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[self, *signature.parameters.values()]
    )
    stand_in.__name__ = "__init__"
    stand_in.__qualname__ = f"{cls.__qualname__}.__init__"
    stand_in._stand_in_of = cls  # type: ignore[attr-defined]
    return stand_in


def _stand_in(cls: type[Any], name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any) -> Any:
        _install(cls)
        return getattr(cls, name)(self, *args)

    method.__name__ = name
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    method._stand_in_of = cls  # type: ignore[attr-defined]
    return method


def _install(cls: type[Any]) -> None:
    """Put the dataclass's ``__repr__``, ``__eq__`` and ``__hash__`` for ``cls``'s fields in
    place of the stand-ins still there (two threads may both do it: the result is the same)."""
    stand_ins = [name for name in _GENERATED if _is_stand_in(cls.__dict__.get(name), cls)]
    if not stand_ins:
        return
    namespace: dict[str, Any] = {
        "__annotations__": {},
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
    }
    for field in dataclasses.fields(cls):
        namespace["__annotations__"][field.name] = field.type
        namespace[field.name] = dataclasses.field(
            repr=field.repr, hash=field.hash, compare=field.compare
        )
    written: type[Any] = dataclasses.dataclass(init=False, unsafe_hash=True)(
        type(cls.__name__, (), namespace)
    )
    for name in stand_ins:
        setattr(cls, name, written.__dict__[name])


def _compiled_init(cls: type[Any]) -> Callable[..., None]:
    """An ``__init__`` for ``cls`` that stores each field through its slot's descriptor."""
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for index, field in enumerate(dataclasses.fields(cls)):
        descriptor = getattr(cls, field.name)
        if not isinstance(descriptor, types.MemberDescriptorType):
            raise TypeError(f"{cls.__qualname__}.{field.name} is not a slot")
        setter = f"_set{index}"
        namespace[setter] = descriptor.__set__
        default = f"_default{index}"
        factory = f"_factory{index}"
        if field.default is not dataclasses.MISSING:
            namespace[default] = field.default
        if field.default_factory is not dataclasses.MISSING:
            namespace[factory] = field.default_factory
        if not field.init:
            if field.default is not dataclasses.MISSING:
                body.append(f"{setter}(self, {default})")
            elif field.default_factory is not dataclasses.MISSING:
                body.append(f"{setter}(self, {factory}())")
            continue
        name = field.name
        if field.default is not dataclasses.MISSING:
            parameter = f"{name}={default}"
            body.append(f"{setter}(self, {name})")
        elif field.default_factory is not dataclasses.MISSING:
            parameter = f"{name}=_FACTORY"
            body.append(f"{setter}(self, {factory}() if {name} is _FACTORY else {name})")
        else:
            parameter = name
            body.append(f"{setter}(self, {name})")
        (keyword if field.kw_only else positional).append(parameter)
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    lines = "\n".join(f"        {line}" for line in body or ["pass"])
    source = (
        f"def build({', '.join(namespace)}):\n"
        f"    def __init__({signature}):\n{lines}\n"
        f"    return __init__\n"
    )
    built: dict[str, Any] = {}
    exec(source, {}, built)  # the source holds field names only, never user data
    init: Callable[..., None] = built["build"](**namespace)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    # the stand-in's signature, which shows the fields' annotations as the dataclass's does
    init.__signature__ = cls.__dict__["__init__"].__signature__  # type: ignore[attr-defined]
    return init
