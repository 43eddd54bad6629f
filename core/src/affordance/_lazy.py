"""Package attributes resolved on first access (PEP 562), shared by the core and the plugins.

A package lists its public names and the module defining each; importing the package imports
none of those modules. The first access imports the module and stores the value in the
package's namespace, so later lookups never reach ``__getattr__`` again. This module imports
``sys`` alone (not even ``__future__``: its annotations are strings), so ``import affordance``
stays a fraction of a millisecond.
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: "Mapping[str, str]", public: list[str]
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name of ``exports`` is taken
    from its module (``exports[name]``) when first asked for; ``dir()`` lists ``public``."""

    def attribute(name: str) -> "Any":
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module  # on first access, not when the package loads

        value = getattr(import_module(module), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def names() -> list[str]:
        return public

    return attribute, names
