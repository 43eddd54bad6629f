"""``KeptConversation``: appending a run's messages to the conversation it continues.

``evaluate(..., conversation=...)`` loads the conversation's messages before the caller's and
keeps the run in it (:meth:`KeptConversation.keep_in`): the drivers call
:meth:`KeptConversation.save_conversation` whenever the run returns, waits, stops or is left,
and each call appends what the conversation does not hold yet, up to where the transcript is
whole — so each message lands once, and never a call without its result. The store and its
handle are ``affordance.conversations``'s (:class:`ConversationHandle`).

A mixin of :class:`~affordance.runtime.loop.Evaluation`, which holds every attribute in its
own slots; ``_KeepingRun`` names what these methods read and write of it.
"""

from __future__ import annotations

from typing import Protocol

from affordance.runtime.loop.hosted_waiting import HostedWaiting
from affordance.runtime.model.messages import Message, UserMessage
from affordance.runtime.record.conversation import ConversationHandle, whole_until

__all__ = ["KeptConversation"]


class _KeepingRun(Protocol):
    """The evaluation as its conversation sees it."""

    conversation: ConversationHandle | None
    _caller_messages: tuple[Message, ...]
    _opening: UserMessage
    _transcript: list[Message]
    _hosted: HostedWaiting | None
    _conversation_length: int
    _unsaved_caller: tuple[Message, ...]
    _saved: int


class KeptConversation:
    """An evaluation's messages, appended to its conversation each once."""

    __slots__ = ()

    # what these methods set (the evaluation's slots)
    conversation: ConversationHandle | None
    _conversation_length: int
    _unsaved_caller: tuple[Message, ...]
    _saved: int

    def keep_in(self: _KeepingRun, conversation: ConversationHandle, history_length: int) -> None:
        """Append this run's messages to ``conversation``, which held ``history_length``
        messages when the run loaded them: the caller's own messages, then the transcript."""
        self.conversation = conversation
        self._conversation_length = history_length
        # the caller's messages after the history; with none at all, the rendered prompt is the
        # first message sent, and so the conversation's
        caller = self._caller_messages[history_length:]
        self._unsaved_caller = caller if self._caller_messages else (self._opening,)

    def save_conversation(self: _KeepingRun) -> None:
        """Append to the conversation what the run added and it does not hold yet, up to where
        the transcript is whole (every call with its result; a turn still waiting for hosted
        approvals is left for the resumed run, which changes it): called by the drivers
        whenever the run returns, waits, stops or is left, so each message lands once."""
        conversation = self.conversation
        if conversation is None:
            return
        transcript = self._transcript
        whole = whole_until(transcript, self._saved)
        if self._hosted and whole == len(transcript) and whole > self._saved:
            whole -= 1  # the turn waiting for hosted approvals gets their answers on resume
        new = (*self._unsaved_caller, *transcript[self._saved : whole])
        if not new:
            return
        self._conversation_length = conversation.append(new, expected=self._conversation_length)
        self._unsaved_caller = ()
        self._saved = whole
