"""An SDK client built from the environment: refused early when no API key is set, and built
once for both of an adapter's paths.

Some SDKs give the async client as an attribute of the sync one (``google-genai``'s
``Client().aio``): an adapter with no client of its own then builds one client on first use,
whichever path asks first, and takes both sides from it (:class:`SharedClient`). An SDK whose
constructor fails late, or messily, without a key is refused before it is called
(:func:`require_api_key`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["SharedClient", "require_api_key"]

ClientT = TypeVar("ClientT")

_ON = ("1", "true")


def require_api_key(keys: Sequence[str], *, switches: Sequence[str] = (), hint: str = "") -> None:
    """Refuse (``ValueError``) when none of the variables ``keys`` is set, unless one of the
    ``switches`` (``1`` or ``true``) selects another way to authenticate; ``hint`` says how
    (``" (or ... for Vertex AI)"``)."""
    if any(os.environ.get(name, "").strip().lower() in _ON for name in switches):
        return
    if not any(os.environ.get(name) for name in keys):
        raise ValueError(f"no API key: set {' or '.join(keys)}{hint}, or pass client=")


class SharedClient(Generic[ClientT]):
    """The client ``build`` makes, built on the first call (once, whichever thread calls
    first) and the same on every call after."""

    __slots__ = ("_build", "_client", "_lock")

    def __init__(self, build: Callable[[], ClientT]) -> None:
        self._build = build
        self._client: ClientT | None = None
        self._lock = threading.Lock()

    def __call__(self) -> ClientT:
        with self._lock:
            if self._client is None:
                self._client = self._build()
            return self._client
