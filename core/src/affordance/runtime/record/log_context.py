"""Correlation fields for the library's logs: a request id, a conversation id, a tenant.

An application sets them around its work (``with log_context(request_id=rid): ...``) and every
record the library writes inside — tool calls, in threads and tasks started there too (context
variables follow them) — carries them in ``extra`` as ``affordance_<name>``. Values must be
metadata: ids, never content.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType

__all__ = ["RESERVED", "current_log_fields", "log_context"]

_EMPTY: Mapping[str, str] = MappingProxyType({})
RESERVED = frozenset(
    {
        "run_id",
        "turn",
        "call_id",
        "tool",
        "arg_keys",
        "arg_kinds",
        "outcome",
        "duration_ms",
        "attempts",
        "error_code",
        "cached",
        "content",
        "event",
        "handler",
        "elapsed_ms",
        "timeout",
    }
)
"""Names the library's own records use; a field cannot shadow them."""
_FIELDS: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "affordance_log_fields", default=_EMPTY
)


@contextmanager
def log_context(**fields: str) -> Iterator[None]:
    """Add ``fields`` to every log record the library writes inside the block (nested blocks
    add to the outer ones)."""
    for name, value in fields.items():
        if not name.isidentifier():
            raise ValueError(f"log field names are identifiers, got {name!r}")
        if name in RESERVED:
            raise ValueError(f"log field {name!r} is one the library sets itself")
        if not isinstance(value, str):
            raise TypeError(f"log field {name!r} must be a string (an id), got {type(value)}")
    token = _FIELDS.set(MappingProxyType({**_FIELDS.get(), **fields}))
    try:
        yield
    finally:
        _FIELDS.reset(token)


def current_log_fields() -> Mapping[str, str]:
    """The fields in force here (empty outside any :func:`log_context`)."""
    return _FIELDS.get()
