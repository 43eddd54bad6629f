"""Consecutive messages whose wire forms share one entry of the transcript: a run.

Some wire formats put a run of messages in one entry: Anthropic's Messages API joins
consecutive messages of one role into one message (a turn's tool results, a paused turn
continued), Gemini sends a turn's function responses as one ``user`` content. With each
message's form kept while it lives (:class:`~affordance.adapters.WireForms`), the form holds
both what the message adds to a shared entry and the entry it makes alone (a
:class:`RunForm`), built once: most messages stand alone, so a request mostly reuses entries,
and only a run of several gets its entry built for the request (:func:`run_entry`). Where
every kind makes runs (Anthropic's roles), :func:`joined_transcript` builds the whole
transcript so; where only some messages do (Gemini's function responses), the plugin gathers
the runs and asks for each one's entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from affordance._frozen import frozen

if TYPE_CHECKING:
    from affordance.adapters.resolution import WireForms

__all__ = ["RunForm", "joined_transcript", "run_entry"]

PieceT = TypeVar("PieceT")
EntryT = TypeVar("EntryT")


@frozen  # built for each message sent
class RunForm(Generic[PieceT, EntryT]):
    """A message's form where consecutive messages of one ``kind`` (a role) share an entry: its
    ``pieces``, what it adds to a shared entry, and its ``entry`` when it stands alone. Shared
    by every request that resends the message: read-only."""

    kind: str
    pieces: tuple[PieceT, ...]
    entry: EntryT


def joined_transcript(
    messages: Iterable[Any],
    forms: WireForms,
    build: Callable[[Any], RunForm[PieceT, EntryT]],
    join: Callable[[str, list[PieceT]], EntryT],
) -> list[EntryT]:
    """The entries of a transcript where every run of consecutive messages of one kind shares
    an entry: each message's form kept in ``forms`` (built by ``build(message)`` the first
    time: bind what else it needs with ``functools.partial``), each run's entry made by
    :func:`run_entry` with ``join``. A form without pieces sends nothing and does not part the
    messages around it."""
    out: list[EntryT] = []
    # Most messages make an entry alone (roles alternate): a form's own entry is sent at once,
    # and the entry of a run of several is joined at the end, in the place the run holds.
    runs: list[tuple[int, list[RunForm[PieceT, EntryT]]]] = []  # (place in out, forms)
    kind: object = _NO_KIND  # the kind of out's last entry
    alone: RunForm[PieceT, EntryT] | None = None  # its form, while it stands alone
    run: list[RunForm[PieceT, EntryT]] = []  # its forms, once it is a run's
    for message in messages:
        form = forms.of(message, build)
        if not form.pieces:
            continue
        if form.kind != kind:
            kind, alone = form.kind, form
            out.append(form.entry)
            continue
        if alone is not None:  # out's last entry is a run's from now on
            run, alone = [alone], None
            runs.append((len(out) - 1, run))
        run.append(form)
    for place, joined in runs:
        out[place] = run_entry(joined, join)
    return out


_NO_KIND = object()  # the kind before the first entry: no form's


def run_entry(
    run: Sequence[RunForm[PieceT, EntryT]], join: Callable[[str, list[PieceT]], EntryT]
) -> EntryT:
    """The entry of ``run``, consecutive forms of one kind: a lone form's own entry (built
    once), else ``join(kind, pieces)`` of all their pieces in order, built now."""
    if len(run) == 1:
        return run[0].entry
    return join(run[0].kind, [piece for form in run for piece in form.pieces])
