"""Confirming destructive tool calls: the caller's approve/deny answers and what waits for them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from affordance._fastinit import fast_init

__all__ = ["Confirmation", "PendingConfirmation", "approve", "arguments_of", "deny"]


@fast_init
@dataclass(frozen=True, slots=True)
class Confirmation:
    """The caller's answer for one pending call; build it with :func:`approve` or :func:`deny`."""

    approved: bool
    message: str = ""


def approve() -> Confirmation:
    return Confirmation(True)


def deny(message: str = "") -> Confirmation:
    """Refuse the call; ``message`` is passed to the model as the reason."""
    return Confirmation(False, message)


@fast_init
@dataclass(frozen=True, slots=True)
class PendingConfirmation:
    """A destructive call whose arguments were validated and which waits for approval.

    ``arguments`` is the validated params as JSON-like data, for showing to a person.
    """

    call_id: str
    name: str
    params: Any
    arguments: Mapping[str, Any]


def arguments_of(params: Any) -> Mapping[str, Any]:
    """Validated params as JSON-like data, for showing a pending call to a person."""
    from affordance.serde import dump

    data = dump(params) if params is not None else {}
    return data if isinstance(data, Mapping) else {"value": data}
