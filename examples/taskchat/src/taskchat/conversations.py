"""Conversations in the database: the transcript, and the tool calls waiting for confirmation.

A conversation suspended for confirmation stores, besides its transcript (which ends with the
model's turn that made the calls), a :class:`PendingTurn`: the calls waiting for the user, the
results of that turn's other calls (already run), and the run id and turn for log correlation.
That is everything needed to finish the turn in another process (see ``chat.py``). A durable
run (``durable.py``) waits in Temporal instead: its pending turn holds the workflow id, the
calls, the results already reported and how many of the run's messages are stored; its
transcript, too, ends with the model's turn that made the calls.

Messages are stored in affordance's transcript format (``affordance.transcript``): each row of
``conversation_messages`` holds a transcript of its one message, and the pending turn's settled
results are a transcript too, so every stored message carries the format's version. Rows and
pending turns written before that hold bare message objects, which are that format's version 1
messages, and read as such.

Writes check the conversation's ``revision``, so two requests racing on one conversation cannot
both commit: the second gets :class:`ConversationConflictError`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from affordance.adapters import Message, ToolResultMessage
from affordance.transcript import FORMAT, from_data, to_data
from taskchat.database import ConversationRow, Database, MessageRow
from taskchat.store import utc_now

__all__ = [
    "Conversation",
    "ConversationConflictError",
    "ConversationStore",
    "PendingCall",
    "PendingTurn",
]


class ConversationConflictError(Exception):
    """Another request changed the conversation since it was read."""


@dataclass(frozen=True, slots=True)
class PendingCall:
    call_id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PendingTurn:
    """``durable``: the run waits in Temporal, ``run_id`` is its workflow id and ``turn`` is 0
    (the run's turns are counted there), ``settled`` the results of the run's calls already
    reported to the user and ``stored`` how many of the run's messages the transcript already
    holds; answering signals it instead of running the calls."""

    run_id: str
    turn: int
    calls: tuple[PendingCall, ...]
    settled: tuple[ToolResultMessage, ...] = ()  # results of the turn's other calls
    durable: bool = False
    stored: int = 0
    turns_before: int = 0  # the run continued an answered turn: the turns numbered before it

    @property
    def shown_turn(self) -> int:
        """The turn's number in the events a client hears: ``turn`` counts within its run
        (for the log, with ``run_id``), and a run that continues an answered turn numbers its
        turns after that one's (see ``chat.py``)."""
        return self.turns_before + self.turn

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "run_id": self.run_id,
            "turn": self.turn,
            "calls": [
                {"call_id": c.call_id, "name": c.name, "arguments": dict(c.arguments)}
                for c in self.calls
            ],
            "settled": to_data(self.settled),
        }
        if self.durable:
            data["durable"] = True
            data["stored"] = self.stored
        if self.turns_before:
            data["turns_before"] = self.turns_before
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PendingTurn:
        settled = stored_messages(data.get("settled", []))
        return cls(
            run_id=str(data["run_id"]),
            turn=int(data["turn"]),
            calls=tuple(
                PendingCall(str(c["call_id"]), str(c["name"]), dict(c["arguments"]))
                for c in data["calls"]
            ),
            settled=tuple(m for m in settled if isinstance(m, ToolResultMessage)),
            durable=bool(data.get("durable", False)),
            stored=int(data.get("stored", 0)),
            turns_before=int(data.get("turns_before", 0)),
        )


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    revision: int  # 0: not stored yet
    messages: tuple[Message, ...] = ()
    pending: PendingTurn | None = None
    created_at: datetime | None = field(default=None, compare=False)


class ConversationStore:
    def __init__(self, database: Database, clock: Callable[[], datetime] = utc_now) -> None:
        self._sessions = database.sessions
        self._clock = clock

    def new(self) -> Conversation:
        return Conversation(id=uuid.uuid4().hex, revision=0)

    def load(self, conversation_id: str) -> Conversation | None:
        with self._sessions() as session:
            row = session.get(ConversationRow, conversation_id)
            if row is None:
                return None
            payloads = session.scalars(
                select(MessageRow.payload)
                .where(MessageRow.conversation_id == conversation_id)
                .order_by(MessageRow.seq)
            ).all()
            return Conversation(
                id=row.id,
                revision=row.revision,
                messages=tuple(m for payload in payloads for m in stored_messages(payload)),
                pending=PendingTurn.from_json(row.pending) if row.pending is not None else None,
                created_at=row.created_at,
            )

    def save(
        self,
        conversation: Conversation,
        appended: Sequence[Message],
        pending: PendingTurn | None,
    ) -> Conversation:
        """Append ``appended`` to the transcript and set ``pending``, in one transaction."""
        now = self._clock()
        pending_json = pending.to_json() if pending is not None else None
        with self._sessions.begin() as session:
            if conversation.revision == 0:
                session.add(
                    ConversationRow(
                        id=conversation.id,
                        revision=1,
                        pending=pending_json,
                        created_at=now,
                        updated_at=now,
                    )
                )
                session.flush()
            else:
                changed = session.execute(
                    update(ConversationRow)
                    .where(
                        ConversationRow.id == conversation.id,
                        ConversationRow.revision == conversation.revision,
                    )
                    .values(
                        revision=conversation.revision + 1, pending=pending_json, updated_at=now
                    )
                ).rowcount
                if changed != 1:
                    raise ConversationConflictError(conversation.id)
            start = len(conversation.messages)
            session.add_all(
                MessageRow(conversation_id=conversation.id, seq=start + i, payload=to_data((m,)))
                for i, m in enumerate(appended)
            )
        return Conversation(
            id=conversation.id,
            revision=conversation.revision + 1,
            messages=(*conversation.messages, *appended),
            pending=pending,
            created_at=conversation.created_at or now,
        )


def stored_messages(payload: Any) -> tuple[Message, ...]:
    """The messages of a stored transcript: a row's payload, or a pending turn's ``settled``.

    A bare message object (a row) or a list of them (``settled``), as written before taskchat
    stored the transcript format, reads as version 1 of it, whose messages have that shape.
    Anything unreadable is a ``TranscriptError``."""
    if isinstance(payload, Mapping) and "format" not in payload:
        payload = [payload]
    if isinstance(payload, list):
        payload = {"format": FORMAT, "version": 1, "messages": payload}
    return from_data(payload)
