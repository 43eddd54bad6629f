"""A whole answer read by a stream translator: the deltas of one response, joined into a turn.

Some providers answer a plain request with the same object a stream brings in pieces (Gemini's
``GenerateContentResponse`` is both the whole answer and each chunk of a stream). Their plugin
then reads parts once, into deltas, and a whole answer is the turn those deltas make — joined
by the core's :class:`~affordance.runtime.model.deltas.TurnAssembler`, exactly as a stream's.
"""

from __future__ import annotations

from collections.abc import Iterable

from affordance.adapters.decoding import UnusableResponseError
from affordance.runtime.model.deltas import Delta, DeltaError, TurnAssembler
from affordance.runtime.model.turn import ProviderTurn

__all__ = ["turn_from_deltas"]


def turn_from_deltas(deltas: Iterable[Delta]) -> ProviderTurn:
    """The turn ``deltas`` make (a parser's answer); deltas that make none — out of order, of
    the wrong type, without a ``TurnEnd`` — as an :class:`UnusableResponseError`, so
    :func:`~affordance.adapters.decoding.decode_turn` reports them as an unreadable body."""
    assembler = TurnAssembler()
    try:
        for delta in deltas:
            assembler.add(delta)
    except DeltaError as error:
        raise UnusableResponseError(str(error)) from error
    if not assembler.complete:
        raise UnusableResponseError("the answer has no end")
    return assembler.turn()
