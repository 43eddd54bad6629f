"""A faster ``__init__`` for the frozen, slotted dataclasses built on every run.

A frozen dataclass sets each field with ``object.__setattr__(self, name, value)``: a generic
attribute lookup per field, about 100 ns each on CPython 3.13. A run of the loop builds some
twenty such objects (requests, messages, events, the response), over a hundred fields in all,
and that was a fifth of the core's own time per run. :func:`fast_init` replaces the generated
``__init__`` with one that stores each field through its slot's descriptor directly, which is
about half the cost, and changes nothing else: the class is still frozen (assigning a field
later raises ``FrozenInstanceError``), and equality, hashing, ``repr``, ``replace`` and
``fields`` are the dataclass's own.

The new ``__init__`` has the same signature as the one it replaces: the same parameters in the
same order, the same defaults (a ``default_factory`` is called when its argument is omitted),
keyword-only fields stay keyword-only, ``init=False`` fields get their default, and
``__post_init__`` runs last (``InitVar`` fields are not supported). A test compares every
decorated class's signature with the dataclass's own.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any, TypeVar

__all__ = ["compiled_init", "fast_init", "replaced_init"]

T = TypeVar("T")

_ORIGINAL_INITS: dict[type[Any], Any] = {}


class _Omitted:
    """The default of a parameter whose field has a ``default_factory``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory default>"


_OMITTED = _Omitted()


def fast_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` a faster ``__init__`` (see the module).

    The new ``__init__`` is compiled when the first instance is built, so a class never
    instantiated costs nothing more at import (compiling takes about 0.1 ms a class).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"fast_init needs a frozen dataclass with slots, got {cls.__qualname__}")
    original = cls.__init__

    def first_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _compiled_init(cls, original)
        cls.__init__ = init  # type: ignore[method-assign]
        init(self, *args, **kwargs)

    first_init.__wrapped__ = original  # type: ignore[attr-defined]  # inspect.signature
    first_init.__qualname__ = original.__qualname__
    first_init.__doc__ = original.__doc__
    _ORIGINAL_INITS[cls] = original
    cls.__init__ = first_init  # type: ignore[method-assign]
    return cls


def _compiled_init(cls: type[Any], original: Any) -> Any:
    namespace: dict[str, Any] = {"_OMITTED": _OMITTED}
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
            parameter = f"{name}=_OMITTED"
            body.append(f"{setter}(self, {factory}() if {name} is _OMITTED else {name})")
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
    init = built["build"](**namespace)
    init.__qualname__ = original.__qualname__
    init.__module__ = cls.__module__
    init.__doc__ = original.__doc__
    return init


def compiled_init(cls: type[Any]) -> Any:
    """``cls``'s fast ``__init__``, compiled now if no instance was built yet (for tests)."""
    original = _ORIGINAL_INITS[cls]
    if getattr(cls.__init__, "__wrapped__", None) is original:
        cls.__init__ = _compiled_init(cls, original)
    return cls.__init__


def replaced_init(cls: type[Any]) -> Any:
    """The dataclass's own ``__init__`` that :func:`fast_init` replaced (for tests), or None."""
    return _ORIGINAL_INITS.get(cls)
