"""Type arguments given at construction: ``Tool[Params, Result](...)``, ``Prompt[Answer](...)``.

A plain ``typing.Generic`` forgets its type arguments at run time (they reach the instance only
after ``__init__`` has returned, and not at all on slotted classes). The classes that need them —
to validate placeholders, build schemas and parse output — subscript to a :class:`TypeArgsAlias`
instead, which passes the arguments to the constructor as keywords. Subclassing an alias
(``class WebSearchSection(MarkdownSection[EmptyParams])``) records them as class defaults.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = [
    "TypeArgsAlias",
    "inherited_type_args",
    "is_concrete",
    "subscript",
]


class TypeArgsAlias:
    """``Cls[Args]``: calling it constructs ``Cls`` with the type arguments as keywords."""

    __slots__ = ("__args__", "__origin__")

    def __init__(self, origin: type[Any], args: tuple[Any, ...]) -> None:
        self.__origin__ = origin
        self.__args__ = args

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.__origin__._type_args_to_kwargs(self.__args__)
        for key, value in bound.items():
            if kwargs.get(key) is not None and kwargs[key] is not value:
                raise TypeError(
                    f"{self!r} was given {key}={kwargs[key]!r}, which contradicts its type argument"
                )
            kwargs[key] = value
        return self.__origin__(*args, **kwargs)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type[Any], ...]:
        return (self.__origin__,)

    def __getattr__(self, name: str) -> Any:
        # Class attributes and classmethods stay reachable: ``Tool[P, R].__name__``.
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self.__origin__, name)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TypeArgsAlias)
            and other.__origin__ is self.__origin__
            and other.__args__ == self.__args__
        )

    def __hash__(self) -> int:
        return hash((self.__origin__, self.__args__))

    def __repr__(self) -> str:
        names = ", ".join(_type_name(arg) for arg in self.__args__)
        return f"{self.__origin__.__qualname__}[{names}]"


def is_concrete(arg: object) -> bool:
    """False for a type variable: ``class MarkdownSection(Section[ParamsT])`` binds nothing."""
    return not isinstance(arg, TypeVar)


def subscript(cls: type[Any], item: Any) -> TypeArgsAlias:
    """What ``cls[item]`` returns for the classes of this library that keep their arguments."""
    return TypeArgsAlias(cls, item if isinstance(item, tuple) else (item,))


def inherited_type_args(cls: type[Any], origin: type[Any]) -> tuple[Any, ...] | None:
    """Type arguments that ``class Sub(Origin[Args])`` bound, if ``cls`` was declared that way."""
    for base in cls.__dict__.get("__orig_bases__", ()):
        if isinstance(base, TypeArgsAlias) and issubclass(base.__origin__, origin):
            return base.__args__
    return None


def _type_name(arg: Any) -> str:
    if arg is None or arg is type(None):
        return "None"
    return getattr(arg, "__qualname__", None) or repr(arg)
