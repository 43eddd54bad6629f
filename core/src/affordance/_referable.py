"""``WeaklyReferable``: a base that gives a slotted class a ``__weakref__``.

A ``slots=True`` dataclass has no ``__weakref__`` of its own, and ``weakref_slot=True`` needs
Python 3.11. Caches keyed by an object's identity that must let the entry go with the object
(a tool's declaration per provider, a message's wire form per model) need one.
"""

from __future__ import annotations

__all__ = ["WeaklyReferable"]


class WeaklyReferable:
    """Gives a slotted subclass a ``__weakref__`` and nothing else."""

    __slots__ = ("__weakref__",)
